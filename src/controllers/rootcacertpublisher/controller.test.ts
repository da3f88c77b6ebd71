import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, before, after, describe, it } from 'node:test';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS, NAMESPACES } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { StatusError } from '../../machinery/status.js';
import { serviceAccountController } from '../serviceaccount/controller.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { DESCRIPTION, DESCRIPTION_ANNOTATION, readRootCaFile, ROOT_CA_CERT_CONFIG_MAP_NAME, rootCaCertPublisherController } from './controller.js';

type ConfigMapObject = ConfigMap & KubeObject;

/** A self-signed test CA (CN=test-ca, P-256, valid until 2126). */
const TEST_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBfDCCASGgAwIBAgIUW2uLguapPBrpG4c3oG4vbXr+3kwwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHdGVzdC1jYTAgFw0yNjExMzAxNzAyNTNaGA8yMTI2MTEwNjE3
MDI1M1owEjEQMA4GA1UEAwwHdGVzdC1jYTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABLsUW8+kcWyZghuRTzAE+7VByLyzAWS9WeJGSYZ8/E5jCY+ohh1tP8FklEwx
iHwwOjEEr90IiFUZm4TYT0DyIgSjUzBRMB0GA1UdDgQWBBQoFql2Ta4xHPUaxlOc
JN9iWGC5EzAfBgNVHSMEGDAWgBQoFql2Ta4xHPUaxlOcJN9iWGC5EzAPBgNVHRMB
Af8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQD1uqTGut492EVurqRQZOc16U4D
yj8/GmGv9nSOV5ePzwIhALpVV1ngzEGoFFhNwg7ZfY6ikGLaZNM1Y5XKtKCwcfym
-----END CERTIFICATE-----
`;

describe('root-ca-cert-publisher controller', () => {
  let dir: string;
  let caFile: string;
  let caPem: string;
  let t: TestContext | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'root-ca-publisher-'));
    caPem = TEST_CA_PEM;
    caFile = join(dir, 'ca.crt');
    await writeFile(caFile, caPem);
  });
  after(() => rm(dir, { recursive: true, force: true }));
  afterEach(() => t?.stop());

  const ns = (name: string, phase = 'Active') => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase } });
  const get = async (namespace: string): Promise<ConfigMapObject | undefined> => {
    try {
      return await t!.client.resource<ConfigMapObject>(CONFIG_MAPS).get(ROOT_CA_CERT_CONFIG_MAP_NAME, { namespace });
    } catch {
      return undefined;
    }
  };
  const published = async (namespace: string): Promise<boolean> => {
    const cm = await get(namespace);
    return cm?.data?.['ca.crt'] === caPem && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION] === DESCRIPTION;
  };
  const start = async (): Promise<TestContext> => {
    t = newTestContext({ options: { rootCaFile: caFile } });
    return t;
  };

  it('publishes the CA in every namespace, new ones too, and recreates it when deleted', async () => {
    const c = await start();
    c.client.seed(NAMESPACES, [ns('default'), ns('kube-system')]);
    await rootCaCertPublisherController.start(c.ctx);
    c.start();
    await waitFor(async () => (await published('default')) && (await published('kube-system')));
    await c.client.resource(NAMESPACES).create(ns('team'));
    await waitFor(() => published('team'));
    await c.client.resource(CONFIG_MAPS).delete(ROOT_CA_CERT_CONFIG_MAP_NAME, { namespace: 'team' });
    await waitFor(() => published('team'));
    assert.equal(c.client.actionsOf('create', 'configmaps').length, 4);
  });

  it('restores the data and a removed description, keeping other keys of the object', async () => {
    const c = await start();
    c.client.seed(NAMESPACES, [ns('a')]);
    await rootCaCertPublisherController.start(c.ctx);
    c.start();
    await waitFor(() => published('a'));
    const cms = c.client.resource<ConfigMapObject>(CONFIG_MAPS);
    const edited = (await get('a'))!;
    await cms.update({ ...edited, metadata: { ...edited.metadata, labels: { mine: 'yes' } }, data: { 'ca.crt': 'tampered', extra: 'x' } }, { namespace: 'a' });
    await waitFor(async () => (await published('a')) && Object.keys((await get('a'))!.data!).length === 1);
    assert.equal((await get('a'))!.metadata.labels?.mine, 'yes');
    const again = (await get('a'))!;
    await cms.update({ ...again, metadata: { ...again.metadata, annotations: {} } }, { namespace: 'a' });
    await waitFor(() => published('a'));
    assert.equal(c.client.actionsOf('update', 'configmaps').length, 4, 'two edits, two restores');
  });

  it('leaves a Terminating namespace alone', async () => {
    const c = await start();
    c.client.seed(NAMESPACES, [ns('going'), ns('kept')]);
    await c.client.resource(NAMESPACES).delete('going');
    await rootCaCertPublisherController.start(c.ctx);
    c.start();
    await c.client.resource(NAMESPACES).create(ns('barrier'));
    await waitFor(async () => (await published('kept')) && (await published('barrier')));
    assert.equal(await get('going'), undefined);
    assert.deepEqual(c.client.actionsOf('create', 'configmaps').map((a) => a.namespace).sort(), ['barrier', 'kept']);
  });

  it('does not retry a create refused because the namespace is terminating, and retries other errors', async () => {
    const c = await start();
    c.client.seed(NAMESPACES, [ns('a')]);
    c.client.injectError(
      'create',
      'configmaps',
      new StatusError({ code: 403, reason: 'Forbidden', message: 'terminating', details: { causes: [{ reason: 'NamespaceTerminating', message: 'terminating' }] } }),
    );
    await rootCaCertPublisherController.start(c.ctx);
    c.start();
    await waitFor(() => c.client.actionsOf('create', 'configmaps').length === 1);
    c.client.injectError('create', 'configmaps', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await c.client.resource(NAMESPACES).create(ns('b'));
    await waitFor(() => published('b'));
    assert.deepEqual(c.client.actionsOf('create', 'configmaps').map((a) => a.namespace), ['a', 'b', 'b']);
    assert.equal(await get('a'), undefined);
  });

  it('does not start without --root-ca-file', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('a')]);
    await rootCaCertPublisherController.start(t.ctx);
    // A barrier: the serviceaccount controller on the same informers acts on namespace b.
    await serviceAccountController.start(t.ctx);
    t.start();
    await t.client.resource(NAMESPACES).create(ns('b'));
    await waitFor(() => t!.client.actionsOf('create', 'serviceaccounts').length === 2);
    assert.equal(t.client.actionsOf('create', 'configmaps').length, 0);
  });

  it('refuses an unreadable or unparsable --root-ca-file', async () => {
    await assert.rejects(readRootCaFile(join(dir, 'missing.crt')), /^Error: error reading root-ca-file at .*missing\.crt/);
    const bad = join(dir, 'bad.crt');
    await writeFile(bad, 'not a certificate');
    await assert.rejects(readRootCaFile(bad), /^Error: error parsing root-ca-file at .*bad\.crt/);
    assert.equal(await readRootCaFile(caFile), caPem);
  });
});
