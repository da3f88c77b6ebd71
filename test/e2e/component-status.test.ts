/**
 * `kubectl get componentstatuses` against `k8ts server`: the API server probes
 * the scheduler and the controller manager at the ports `k8ts server` picked
 * for them, and the embedded store as etcd-0.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../src/client/testing/wait-for.js';
import { startEtcd, type EtcdProcess } from '../../src/storage/etcd/testing/etcd-process.js';
import { startK8ts, type K8tsProcess } from './testing/k8ts-process.js';
import { newKubectl, type Kubectl } from './testing/kubectl.js';

const WARNING = 'Warning: v1 ComponentStatus is deprecated in v1.19+';

describe('kubectl get componentstatuses (k8ts server)', { timeout: 120_000 }, () => {
  let dir: string;
  let server: K8tsProcess | undefined;
  let kubectl: Kubectl;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-cs-'));
    server = startK8ts(['server', '--data-dir', join(dir, 'data'), '--secure-port', '0']);
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    kubectl = newKubectl('1.32', line.slice('export KUBECONFIG='.length));
  });
  after(async () => {
    await server?.stop('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('lists scheduler, controller-manager and etcd-0 as Healthy, with the deprecation warning', async () => {
    let last = { stdout: '', stderr: '' };
    await waitFor(
      async () => {
        const r = await kubectl('get', 'cs');
        last = r;
        return r.code === 0 && ['scheduler', 'controller-manager', 'etcd-0'].every((n) => new RegExp(`^${n}\\s+Healthy\\s`, 'm').test(r.stdout));
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'every component Healthy' },
    ).catch((e: unknown) => {
      throw new Error(`kubectl get cs:\n${last.stderr}${last.stdout}`, { cause: e });
    });
    assert.match(last.stdout, /^NAME\s+STATUS\s+MESSAGE\s+ERROR\s*$/m);
    assert.match(last.stdout, /^etcd-0\s+Healthy\s+ok\s*$/m);
    assert.equal(last.stderr.trim(), WARNING);
  });

  it('gets one component as JSON', async () => {
    const r = await kubectl('get', 'cs', 'etcd-0', '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      kind: 'ComponentStatus',
      apiVersion: 'v1',
      metadata: { name: 'etcd-0' },
      conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
    });
    assert.match(r.stderr, new RegExp(WARNING));
  });

  it('answers NotFound for an unknown component, and discovery lists get and list only', async () => {
    const r = await kubectl('get', 'componentstatuses', 'nope');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(NotFound\): componentstatus "nope" not found/);
    const resources = await kubectl.ok('api-resources', '--api-group=', '-o', 'wide');
    assert.match(resources, /^componentstatuses\s+cs\s+v1\s+false\s+ComponentStatus\s+get,list\s*$/m);
    const del = await kubectl('delete', 'cs', 'etcd-0');
    assert.notEqual(del.code, 0);
    assert.match(del.stderr, /MethodNotAllowed|the server does not allow this method/);
  });
});

describe('kubectl get componentstatuses (k8ts apiserver on etcd, its components down)', { timeout: 120_000 }, () => {
  let dir: string;
  let etcd: EtcdProcess | undefined;
  let apiserver: K8tsProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-cs-etcd-'));
    etcd = await startEtcd();
  });
  after(async () => {
    await apiserver?.stop('SIGTERM');
    await etcd?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports etcd-0 from the etcd server, and the scheduler Unhealthy at the URL the flag gives', async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    const schedulerUrl = 'http://127.0.0.1:1/healthz';
    apiserver = startK8ts([
      'apiserver',
      ...['--data-dir', join(dir, 'data'), '--secure-port', '0', '--bind-address', '127.0.0.1', '--etcd-servers', etcd!.endpoint],
      ...['--component-status-scheduler-url', schedulerUrl, '--component-status-controller-manager-url', 'http://127.0.0.1:1/healthz'],
    ]);
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    const kubectl = newKubectl('1.32', line.slice('export KUBECONFIG='.length));
    await apiserver.waitForLine(/^apiserver: serving on /, 60_000);
    const r = await kubectl('get', 'cs');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^etcd-0\s+Healthy\s+ok\s*$/m);
    assert.match(r.stdout, new RegExp(`^scheduler\\s+Unhealthy\\s+Get "${schedulerUrl}": dial tcp 127\\.0\\.0\\.1:1: connect: connection refused\\s*$`, 'm'));
    assert.match(r.stdout, /^controller-manager\s+Unhealthy\s/m);
    const selected = await kubectl.ok('get', 'cs', '--field-selector', 'metadata.name=etcd-0', '-o', 'name');
    assert.equal(selected.trim(), 'componentstatus/etcd-0');
  });
});
