/**
 * A real `k8ts apiserver` and `k8ts controller-manager` on loopback, for the
 * end-to-end tests of controllers: the manager runs with its own client
 * certificate and the flags a test gives (short timers, --controllers), and
 * the test talks to the API server as admin through k8ts's HTTP client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newHttpClient, type HttpClient } from '../../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../../src/client/rest/kubeconfig.js';
import { SERVICE_ACCOUNTS } from '../../../../src/client/rest/resources.js';
import { startK8ts, type K8tsProcess } from '../../testing/k8ts-process.js';

export interface ControlPlane {
  readonly dataDir: string;
  readonly adminKubeconfig: string;
  readonly admin: HttpClient;
  readonly apiserver: K8tsProcess;
  readonly manager: K8tsProcess;
  /** Stop the manager, then the API server, and remove the data directory. */
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Prefix of the temporary directory. */
  readonly name: string;
  /** Flags of `k8ts controller-manager` besides --kubeconfig and --secure-port. */
  readonly managerArgs: readonly string[];
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const root = await mkdtemp(join(tmpdir(), `k8ts-${options.name}-`));
  const dataDir = join(root, 'data');
  const apiserver = startK8ts(['apiserver', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
  let manager: K8tsProcess | undefined;
  let admin: HttpClient | undefined;
  const stop = async (): Promise<void> => {
    await manager?.stop();
    admin?.close();
    await apiserver.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    await apiserver.waitForLine(/^apiserver: serving on /, 60_000);
    const adminKubeconfig = line.slice('export KUBECONFIG='.length).trim();
    admin = newHttpClient(restConfigFromKubeconfig(adminKubeconfig));
    manager = startK8ts(['controller-manager', '--kubeconfig', join(dataDir, 'pki', 'controller-manager.kubeconfig'), '--secure-port', '0', ...options.managerArgs]);
    await manager.waitForLine(/^controller-manager: serving /, 60_000);
    // Pods are refused until namespace default has its ServiceAccount (ServiceAccount admission, as upstream):
    // the manager's serviceaccount controller makes it when it runs; otherwise the test stands in for it.
    const controllers = options.managerArgs.find((a) => a.startsWith('--controllers='));
    const accounts = admin.resource(SERVICE_ACCOUNTS);
    if (controllers !== undefined && !/[=,]serviceaccount(,|$)/.test(controllers)) {
      await accounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
    }
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await accounts.get('default', { namespace: 'default' });
        break;
      } catch (e: unknown) {
        if (Date.now() > deadline) throw e;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return { dataDir, adminKubeconfig, admin, apiserver, manager, stop };
  } catch (e: unknown) {
    await stop();
    throw e;
  }
}
