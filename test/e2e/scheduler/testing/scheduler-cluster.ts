/**
 * A real `k8ts apiserver` on loopback and any number of `k8ts scheduler`
 * processes against it, each with the scheduler's own client certificate
 * (system:kube-scheduler); the test talks to the API server as admin.
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newHttpClient, type HttpClient } from '../../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../../src/client/rest/kubeconfig.js';
import { startK8ts, type K8tsProcess } from '../../testing/k8ts-process.js';

/** Leader election timers short enough for tests (upstream refuses renewDeadline ≤ 1.2 × retryPeriod). */
export const SHORT_LEADER_ELECTION = ['--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=500ms'];

export interface SchedulerProcess {
  readonly process: K8tsProcess;
  /** The leader election identity ('' with --leader-elect=false). */
  readonly identity: string;
  /** http://127.0.0.1:PORT of /healthz and /metrics. */
  readonly baseUrl: string;
}

export interface SchedulerCluster {
  readonly dataDir: string;
  readonly adminKubeconfig: string;
  readonly schedulerKubeconfig: string;
  readonly admin: HttpClient;
  readonly apiserver: K8tsProcess;
  /** Start `k8ts scheduler --kubeconfig <its own> --secure-port 0 ARGS` and wait until it serves. */
  startScheduler(args: readonly string[]): Promise<SchedulerProcess>;
  /** Stop every scheduler, then the API server, and remove the data directory. */
  stop(): Promise<void>;
}

export async function startSchedulerCluster(name: string): Promise<SchedulerCluster> {
  const root = await mkdtemp(join(tmpdir(), `k8ts-${name}-`));
  const dataDir = join(root, 'data');
  const apiserver = startK8ts(['apiserver', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
  const schedulers: K8tsProcess[] = [];
  let admin: HttpClient | undefined;
  const stop = async (): Promise<void> => {
    for (const s of schedulers) await s.stop().catch(() => s.stop('SIGKILL').catch(() => undefined));
    admin?.close();
    await apiserver.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    await apiserver.waitForLine(/^apiserver: serving on /, 60_000);
    const adminKubeconfig = line.slice('export KUBECONFIG='.length).trim();
    admin = newHttpClient(restConfigFromKubeconfig(adminKubeconfig));
    const schedulerKubeconfig = join(dataDir, 'pki', 'scheduler.kubeconfig');
    const startScheduler = async (args: readonly string[]): Promise<SchedulerProcess> => {
      const p = startK8ts(['scheduler', '--kubeconfig', schedulerKubeconfig, '--secure-port', '0', ...args]);
      schedulers.push(p);
      const serving = await p.waitForLine(/^scheduler: serving \/healthz and \/metrics on /, 60_000);
      const identityLine = args.some((a) => /^--leader-elect=(false|0|f)$/i.test(a)) ? undefined : await p.waitForLine(/^scheduler: leader election identity /, 10_000);
      return {
        process: p,
        identity: identityLine === undefined ? '' : /identity (\S+) on lease/.exec(identityLine)![1]!,
        baseUrl: serving.slice(serving.indexOf('http://')).trim(),
      };
    };
    return { dataDir, adminKubeconfig, schedulerKubeconfig, admin, apiserver, startScheduler, stop };
  } catch (e: unknown) {
    await stop();
    throw e;
  }
}

/** GET over plain HTTP (the scheduler's /healthz and /metrics). */
export function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** One sample of a Prometheus text exposition, e.g. metricValue(text, 'leader_election_master_status{name="kube-scheduler"}'). */
export function metricValue(text: string, sample: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}
