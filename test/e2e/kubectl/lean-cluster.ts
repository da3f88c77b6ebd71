/**
 * A cluster of only the components a test file needs: a real `k8ts apiserver`
 * configured as `k8ts server` configures its own (Node,RBAC authorization,
 * NodeRestriction admission, its own PKI and admin kubeconfig), plus, when
 * asked, a real `k8ts controller-manager` running just the controllers named.
 * No scheduler, no kubelet: a file that neither needs nor tests them does not
 * pay for their processes, their start and their watches. A file that tests
 * `k8ts server` itself uses startCluster (cluster.ts).
 *
 * It returns the same TestCluster as startCluster: the data directory is
 * `<workDir>/data`, the admin kubeconfig `<workDir>/data/admin.kubeconfig`.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAuditPolicyFile } from '../../../src/cmd/audit-policy-file.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { newKubectl } from '../testing/kubectl.js';
import { ensureDefaultServiceAccount } from '../testing/service-accounts.js';
import type { TestCluster } from './cluster.js';

export interface LeanClusterOptions {
  /** More flags of `k8ts apiserver` (an --authorization-mode or --enable/--disable-admission-plugins here replaces k8ts server's). */
  readonly apiserverArgs?: readonly string[];
  /**
   * Run `k8ts controller-manager` with these flags besides its kubeconfig, port, --cluster-cidr and --root-ca-file,
   * e.g. `['--controllers=serviceaccount,resourcequota']`; no controller manager when absent.
   */
  readonly controllerManagerArgs?: readonly string[];
  /** Write the audit log where `k8ts server` does (`<workDir>/data/logs/audit.log`, its built-in policy); default false. */
  readonly auditLog?: boolean;
  /** Make namespace default's `default` ServiceAccount before returning (default true). */
  readonly defaultServiceAccount?: boolean;
}

export interface LeanCluster extends TestCluster {
  /** The controller manager, when one was asked for. */
  readonly controllerManager?: K8tsProcess;
}

/** `k8ts server`'s API server flags that a lean cluster keeps (src/cmd/server.ts: SERVER_AUTHORIZATION_MODE, SERVER_ADMISSION_PLUGINS). */
function serverLikeArgs(extra: readonly string[]): string[] {
  const given = (flag: RegExp): boolean => extra.some((a) => flag.test(a));
  return [
    ...(given(/^--authorization-mode(=|$)/) ? [] : ['--authorization-mode', 'Node,RBAC']),
    ...(given(/^--(enable|disable)-admission-plugins(=|$)/) ? [] : ['--enable-admission-plugins', 'NodeRestriction']),
  ];
}

export async function startLeanCluster(name: string, options: LeanClusterOptions = {}): Promise<LeanCluster> {
  const root = await mkdtemp(join(tmpdir(), `k8ts-${name}-`));
  const dataDir = join(root, 'data');
  const extra = options.apiserverArgs ?? [];
  const audit: string[] = [];
  if (options.auditLog === true) {
    await mkdir(dataDir, { recursive: true });
    audit.push('--audit-log-path', join(dataDir, 'logs', 'audit.log'), '--audit-policy-file', ensureAuditPolicyFile(dataDir));
  }
  const apiserver = startK8ts(['apiserver', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...serverLikeArgs(extra), ...audit, ...extra]);
  let controllerManager: K8tsProcess | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      await controllerManager?.stop();
      await apiserver.stop();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  };
  try {
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    const kubeconfig = line.slice('export KUBECONFIG='.length).trim();
    await apiserver.waitForLine(/^apiserver: serving on /, 60_000);
    if (options.controllerManagerArgs !== undefined) {
      const pki = join(dataDir, 'pki');
      controllerManager = startK8ts([
        'controller-manager',
        '--kubeconfig',
        join(pki, 'controller-manager.kubeconfig'),
        '--secure-port',
        '0',
        '--cluster-cidr',
        '127.244.0.0/16',
        '--root-ca-file',
        join(pki, 'ca.crt'),
        ...options.controllerManagerArgs,
      ]);
      await controllerManager.waitForLine(/^controller-manager: serving /, 60_000);
    }
    if (options.defaultServiceAccount !== false) await ensureDefaultServiceAccount(newKubectl('1.32', kubeconfig), 'default');
    return { kubeconfig, workDir: root, server: apiserver, ...(controllerManager !== undefined ? { controllerManager } : {}), stop };
  } catch (e: unknown) {
    await stop();
    throw e;
  }
}
