/**
 * networking.k8s.io/v1 with real kubectl 1.32 against `k8ts apiserver` (a lean
 * cluster: the kinds are stored and served only, as on an upstream cluster
 * with no ingress controller and no network policy plugin): apply of a
 * manifest with an IngressClass, an Ingress and a NetworkPolicy, `get` with
 * upstream's columns, `describe ingress`, an invalid Ingress (kubectl's 422
 * line), `api-resources`, `explain`, the DefaultIngressClass plugin, and
 * `apply --prune` over the group. Budget: under 30 s.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startLeanCluster, type LeanCluster } from './kubectl/lean-cluster.js';
import { newKubectl, type Kubectl } from './testing/kubectl.js';

const MANIFEST = `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  labels: {app: x}
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  labels: {app: x}
spec:
  ingressClassName: nginx
  tls:
  - hosts: [foo.example.com]
    secretName: foo-tls
  rules:
  - host: foo.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service: {name: web, port: {number: 80}}
      - path: /api
        pathType: Exact
        backend:
          service: {name: api, port: {name: http}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-web
  labels: {app: x}
spec:
  podSelector:
    matchLabels: {app: web}
  ingress:
  - from:
    - ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}
    ports:
    - port: 80
  egress:
  - to:
    - namespaceSelector: {}
`;

const EXTRA_INGRESS = `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: extra
  labels: {app: x}
spec:
  defaultBackend:
    service: {name: web, port: {number: 80}}
`;

const LEGACY_INGRESS = `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: legacy
  annotations:
    kubernetes.io/ingress.class: traefik
spec:
  defaultBackend:
    service: {name: web, port: {number: 80}}
`;

const BAD_INGRESS = `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: bad
spec:
  rules:
  - http:
      paths:
      - path: /
        backend:
          service: {name: web, port: {number: 80}}
`;

/** Table output with the AGE column's values blanked. */
const withoutAge = (text: string): string => text.replace(/ +\d+[smhd](\d+[smh])?$/gm, ' AGE');

describe('networking.k8s.io/v1 with kubectl 1.32', () => {
  let cluster: LeanCluster;
  let kubectl: Kubectl;
  let dir: string;

  before(async () => {
    cluster = await startLeanCluster('networking', { defaultServiceAccount: false });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    dir = cluster.workDir;
    await writeFile(join(dir, 'net.yaml'), MANIFEST);
    await writeFile(join(dir, 'extra.yaml'), EXTRA_INGRESS);
    await writeFile(join(dir, 'bad.yaml'), BAD_INGRESS);
    await writeFile(join(dir, 'legacy.yaml'), LEGACY_INGRESS);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('applies the three kinds and lists them with upstream columns', async () => {
    assert.equal(
      await kubectl.ok('apply', '-f', join(dir, 'net.yaml')),
      'ingressclass.networking.k8s.io/nginx created\ningress.networking.k8s.io/web created\nnetworkpolicy.networking.k8s.io/allow-web created\n',
    );
    assert.equal(
      withoutAge(await kubectl.ok('get', 'ing,ingressclass,netpol')),
      [
        'NAME                            CLASS   HOSTS             ADDRESS   PORTS     AGE',
        'ingress.networking.k8s.io/web   nginx   foo.example.com             80, 443 AGE',
        '',
        'NAME                                   CONTROLLER             PARAMETERS   AGE',
        'ingressclass.networking.k8s.io/nginx   k8s.io/ingress-nginx   <none> AGE',
        '',
        'NAME                                        POD-SELECTOR   AGE',
        'networkpolicy.networking.k8s.io/allow-web   app=web AGE',
        '',
      ].join('\n'),
    );
    // Defaults: policyTypes from the rules present, port protocol TCP.
    const np = JSON.parse(await kubectl.ok('get', 'netpol', 'allow-web', '-o', 'json')) as { spec: { policyTypes: string[]; ingress: { ports: { protocol: string }[] }[] } };
    assert.deepEqual(np.spec.policyTypes, ['Ingress', 'Egress']);
    assert.equal(np.spec.ingress[0]?.ports[0]?.protocol, 'TCP');
  });

  it('describes an Ingress as upstream kubectl does', async () => {
    const out = await kubectl.ok('describe', 'ingress', 'web');
    assert.match(out, /^Name: +web\nLabels: +app=x\nNamespace: +default\nAddress: +\nIngress Class: +nginx\nDefault backend: +<default>\nTLS:\n  foo-tls terminates foo.example.com\nRules:\n/);
    assert.match(out, /\n  foo\.example\.com  \n +\/ +web:80 \(<error: services "web" not found>\)\n +\/api +api:http \(<error: services "api" not found>\)\n/);
  });

  it('refuses an Ingress path without pathType with kubectl\'s 422 line', async () => {
    const r = await kubectl('apply', '-f', join(dir, 'bad.yaml'));
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'The Ingress "bad" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified\n');
  });

  it('lists the group in api-resources and explains its schema', async () => {
    assert.equal(
      await kubectl.ok('api-resources', '--api-group=networking.k8s.io'),
      [
        'NAME              SHORTNAMES   APIVERSION             NAMESPACED   KIND',
        'ingressclasses                 networking.k8s.io/v1   false        IngressClass',
        'ingresses         ing          networking.k8s.io/v1   true         Ingress',
        'networkpolicies   netpol       networking.k8s.io/v1   true         NetworkPolicy',
        '',
      ].join('\n'),
    );
    const explain = await kubectl.ok('explain', 'ingress.spec.rules');
    assert.match(explain, /^GROUP: +networking\.k8s\.io\nKIND: +Ingress\nVERSION: +v1\n\nFIELD: rules <\[\]IngressRule>\n/);
    assert.match(explain, /\n  http\t<HTTPIngressRuleValue>\n/);
  });

  it('gives an Ingress without a class the default IngressClass (DefaultIngressClass)', async () => {
    await kubectl.ok('apply', '-f', join(dir, 'extra.yaml'));
    assert.equal(await kubectl.ok('get', 'ing', 'extra', '-o', 'jsonpath={.spec.ingressClassName}'), 'nginx');
  });

  it('warns about the legacy class annotation, and leaves such an Ingress without a class', async () => {
    const r = await kubectl('create', '-f', join(dir, 'legacy.yaml'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, `Warning: annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead\n`);
    assert.equal(await kubectl.ok('get', 'ing', 'legacy', '-o', 'jsonpath={.spec.ingressClassName}'), '');
    await kubectl.ok('delete', 'ing', 'legacy');
  });

  it('prunes Ingresses and NetworkPolicies with apply --prune', async () => {
    // The manifest lacks `extra`: pruning over the group removes it and keeps the rest.
    const out = await kubectl.ok(
      'apply',
      '--prune',
      '-l',
      'app=x',
      '--prune-allowlist=networking.k8s.io/v1/Ingress',
      '--prune-allowlist=networking.k8s.io/v1/NetworkPolicy',
      '-f',
      join(dir, 'net.yaml'),
    );
    assert.match(out, /^ingress\.networking\.k8s\.io\/extra pruned$/m);
    assert.equal((await kubectl.ok('get', 'ing', '-o', 'name')).trim(), 'ingress.networking.k8s.io/web');
    // kubectl's default prune list no longer fails on Ingress; it still names kinds k8ts does not serve
    // (PersistentVolumeClaim, PersistentVolume, ReplicationController), and kubectl stops at the first of them.
    const r = await kubectl('apply', '--prune', '-l', 'app=x', '-f', join(dir, 'net.yaml'));
    assert.doesNotMatch(r.stderr, /networking\.k8s\.io|Ingress/);
  });
});
