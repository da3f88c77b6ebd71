/**
 * The ServiceAccount admission plugin end to end, with real kubectl against a
 * `k8ts apiserver` and a `k8ts controller-manager` running the ServiceAccount
 * controller, which makes each namespace's `default` (lean-cluster.ts): a pod gets the projected kube-api-access-* volume and its
 * read-only mounts, a pod naming a missing service account is refused with
 * upstream's message until the account exists, automountServiceAccountToken
 * turns the volume off, the account's imagePullSecrets become the pod's,
 * and a mirror pod naming a service account is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';
import { waitForDefaultServiceAccount } from '../testing/service-accounts.js';

const NS = 'sa-admission';

describe('ServiceAccount admission with real kubectl', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;

  before(async () => {
    cluster = await startLeanCluster('sa-admission', { controllerManagerArgs: ['--controllers=serviceaccount'] });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    await kubectl.ok('create', 'namespace', NS);
    await waitForDefaultServiceAccount(kubectl, NS);
  });
  after(async () => {
    await cluster?.stop();
  });

  const apply = (yaml: string) => withStdin(kubectl, cluster.kubeconfig, yaml)('create', '-f', '-');
  const getPod = async (name: string): Promise<Pod> => JSON.parse(await kubectl.ok('get', 'pod', name, '-n', NS, '-o', 'json')) as Pod;

  it('mounts the projected API-access volume into every container and init container', async () => {
    await apply(`apiVersion: v1
kind: Pod
metadata: {name: web, namespace: ${NS}}
spec:
  initContainers: [{name: init, image: busybox}]
  containers: [{name: app, image: nginx}, {name: side, image: busybox}]
`).then((r) => assert.equal(r.code, 0, r.stderr));
    const pod = await getPod('web');
    assert.equal(pod.spec?.serviceAccountName, 'default');
    const volumes = pod.spec?.volumes ?? [];
    assert.equal(volumes.length, 1);
    const volume = volumes[0]!;
    assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    const mount = { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) assert.deepEqual(c.volumeMounts, [mount], c.name);
  });

  it("refuses a pod whose service account does not exist, with upstream's message, until it does", async () => {
    const manifest = `apiVersion: v1
kind: Pod
metadata: {name: robot-pod, namespace: ${NS}}
spec: {serviceAccountName: robot, containers: [{name: app, image: nginx}]}
`;
    const refused = await apply(manifest);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`Error from server \\(Forbidden\\): error when creating "STDIN": pods "robot-pod" is forbidden: error looking up service account ${NS}/robot: serviceaccount "robot" not found`));
    await kubectl.ok('create', 'serviceaccount', 'robot', '-n', NS);
    // The account is read through the server's watch cache: it is seen within moments.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await apply(manifest);
      if (r.code === 0) break;
      if (Date.now() > deadline) assert.fail(r.stderr);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal((await getPod('robot-pod')).spec?.serviceAccountName, 'robot');
  });

  it('adds no token volume when the pod or its service account turns automounting off', async () => {
    await kubectl.ok('run', 'quiet', '-n', NS, '--image=nginx', '--overrides={"spec":{"automountServiceAccountToken":false}}');
    assert.equal((await getPod('quiet')).spec?.volumes, undefined);
    await apply(`apiVersion: v1
kind: ServiceAccount
metadata: {name: no-token, namespace: ${NS}}
automountServiceAccountToken: false
imagePullSecrets: [{name: registry-creds}]
`).then((r) => assert.equal(r.code, 0, r.stderr));
    await kubectl.ok('run', 'quiet2', '-n', NS, '--image=nginx', '--overrides={"spec":{"serviceAccountName":"no-token"}}');
    const pod = await getPod('quiet2');
    assert.equal(pod.spec?.volumes, undefined);
    assert.equal(pod.spec?.containers[0]?.volumeMounts, undefined);
    assert.deepEqual(pod.spec?.imagePullSecrets, [{ name: 'registry-creds' }], "the account's image pull secrets");
  });

  it('refuses a mirror pod that names a service account', async () => {
    const refused = await apply(`apiVersion: v1
kind: Pod
metadata: {name: mirror, namespace: ${NS}, annotations: {kubernetes.io/config.mirror: abc}}
spec: {serviceAccountName: default, containers: [{name: app, image: nginx}]}
`);
    assert.match(refused.stderr, /pods "mirror" is forbidden: a mirror pod may not reference service accounts/);
  });
});
