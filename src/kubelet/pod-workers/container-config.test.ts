import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../types.js';
import { containerConfig, expandVariables, milliCPUToQuota, milliCPUToShares, oomScoreAdjust, podGracePeriodSeconds } from './container-config.js';
import { hashContainer } from './container-hash.js';
import { podSandboxConfig } from './sandbox-config.js';

const pod = (spec: Partial<NonNullable<Pod['spec']>>, meta: Partial<Pod['metadata']> = {}): Pod =>
  ({ metadata: { name: 'web', namespace: 'ns', uid: 'u-1', labels: { app: 'web' }, annotations: { note: 'x' }, ...meta }, spec: { containers: [], ...spec } }) as Pod;

describe('container config', () => {
  it('converts cpu and memory as upstream does', () => {
    assert.equal(milliCPUToShares(0), 2);
    assert.equal(milliCPUToShares(1), 2);
    assert.equal(milliCPUToShares(250), 256);
    assert.equal(milliCPUToShares(1000), 1024);
    assert.equal(milliCPUToQuota(0), 0);
    assert.equal(milliCPUToQuota(5), 1000);
    assert.equal(milliCPUToQuota(500), 50_000);
  });

  it('scores OOM by QoS class', () => {
    const guaranteed = pod({ containers: [{ name: 'a', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] });
    assert.equal(oomScoreAdjust(guaranteed, guaranteed.spec!.containers[0]!, 8 * 2 ** 30), -997);
    const bestEffort = pod({ containers: [{ name: 'a' }] });
    assert.equal(oomScoreAdjust(bestEffort, bestEffort.spec!.containers[0]!, 8 * 2 ** 30), 1000);
    const burstable = pod({ containers: [{ name: 'a', resources: { requests: { memory: '2Gi' } } }] });
    assert.equal(oomScoreAdjust(burstable, burstable.spec!.containers[0]!, 8 * 2 ** 30), 750);
  });

  it('expands $(VAR) in command and args, leaving unknown references and turning $$ into $', () => {
    const env = new Map([['NAME', 'k8ts']]);
    assert.equal(expandVariables('hello $(NAME) $(MISSING) $$(NAME) $', env), 'hello k8ts $(MISSING) $(NAME) $');
  });

  it('labels, annotates and sizes the container, with its log under <name>/<restartCount>.log', () => {
    const container = { name: 'main', image: 'busybox:1.35', command: ['sh', '-c'], args: ['echo $(GREETING)'], workingDir: '/tmp', resources: { requests: { cpu: '250m' }, limits: { cpu: '500m', memory: '64Mi' } } };
    const p = pod({ containers: [container], terminationGracePeriodSeconds: 7 });
    const config = containerConfig({ pod: p, container, restartCount: 3, envs: [{ key: 'GREETING', value: 'hi' }], mounts: [], node: undefined });
    assert.deepEqual(config.metadata, { name: 'main', attempt: 3 });
    assert.deepEqual(config.args, ['echo hi']);
    assert.equal(config.workingDir, '/tmp');
    assert.equal(config.logPath, 'main/3.log');
    assert.deepEqual(config.labels, { 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'ns', 'io.kubernetes.pod.uid': 'u-1', 'io.kubernetes.container.name': 'main' });
    assert.equal(config.annotations['io.kubernetes.container.hash'], hashContainer(container));
    assert.equal(config.annotations['io.kubernetes.container.restartCount'], '3');
    assert.equal(config.annotations['io.kubernetes.pod.terminationGracePeriod'], '7');
    assert.deepEqual(
      { ...config.linux?.resources, oomScoreAdj: undefined },
      { cpuShares: 256, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimitInBytes: 64 * 2 ** 20, oomScoreAdj: undefined },
    );
  });

  it("puts an ephemeral container with a running target in that container's pid namespace (CRI TARGET), others in their own", () => {
    const debug = { name: 'dbg', image: 'busybox:1.35' };
    const p = pod({ containers: [{ name: 'app' }] });
    const targeted = containerConfig({ pod: p, container: debug, restartCount: 0, envs: [], mounts: [], node: undefined, targetContainerId: 'c-123' });
    assert.deepEqual(targeted.linux?.namespaceOptions, { network: 'POD', pid: 'TARGET', targetId: 'c-123', ipc: 'POD' });
    const alone = containerConfig({ pod: p, container: debug, restartCount: 0, envs: [], mounts: [], node: undefined });
    assert.deepEqual(alone.linux?.namespaceOptions, { network: 'POD', pid: 'CONTAINER', ipc: 'POD' });
  });

  it('takes the grace period from the deletion, else the spec, else 30 s', () => {
    assert.equal(podGracePeriodSeconds(pod({})), 30);
    assert.equal(podGracePeriodSeconds(pod({ terminationGracePeriodSeconds: 5 })), 5);
    assert.equal(podGracePeriodSeconds(pod({ terminationGracePeriodSeconds: 5 }, { deletionGracePeriodSeconds: 1 })), 1);
  });
});

describe('sandbox config', () => {
  it('names the log directory, maps ports, labels the sandbox and picks the namespaces', () => {
    const p = pod({ containers: [{ name: 'a', ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP', hostPort: 5353 }] }], shareProcessNamespace: true });
    const config = podSandboxConfig(p, 2, '/var/log/pods');
    assert.deepEqual(config.metadata, { name: 'web', uid: 'u-1', namespace: 'ns', attempt: 2 });
    assert.equal(config.logDirectory, '/var/log/pods/ns_web_u-1');
    assert.equal(config.hostname, 'web');
    assert.deepEqual(config.portMappings, [{ protocol: 'TCP', containerPort: 80 }, { protocol: 'UDP', containerPort: 53, hostPort: 5353 }]);
    assert.equal(config.labels.app, 'web');
    assert.equal(config.labels['io.kubernetes.pod.uid'], 'u-1');
    assert.equal(config.labels['io.kubernetes.container.type'], 'podsandbox');
    assert.equal(config.annotations.note, 'x');
    assert.deepEqual(config.linux?.namespaceOptions, { network: 'POD', pid: 'POD', ipc: 'POD' });
    const host = podSandboxConfig(pod({ containers: [], hostNetwork: true }), 0, '/l');
    assert.deepEqual(host.linux?.namespaceOptions, { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' });
  });
});
