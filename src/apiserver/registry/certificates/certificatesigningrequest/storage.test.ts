import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { newBuiltinScheme } from '../../../../api/resources.js';
import { asBytes, makeCertificatePem, makeCsr } from '../../../../api/certificates/v1/testing/make-csr.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import type { GenericStore } from '../../generic/store.js';
import { Registry } from '../../registry.js';
import { populateConditionTimestamps } from './strategy.js';

type Csr = KubeObject & CertificateSigningRequest;
const GROUP = 'certificates.k8s.io';
const ALICE = { name: 'alice', uid: 'alice-uid', groups: ['devs', 'system:authenticated'], extra: { scope: ['a', 'b'] } };

describe('CertificateSigningRequest storage', () => {
  let registry: Registry;
  let main: GenericStore;
  let status: GenericStore;
  let approval: GenericStore;
  let request: string;
  let certificate: string;
  let counter = 0;

  const body = (overrides: Partial<Csr> = {}): Csr => ({
    apiVersion: `${GROUP}/v1`,
    kind: 'CertificateSigningRequest',
    metadata: { name: `csr-${++counter}` },
    spec: { request, signerName: 'example.com/signer', usages: ['client auth'], username: 'mallory', uid: 'x', groups: ['system:masters'], extra: { e: ['f'] } },
    status: { conditions: [{ type: 'Approved', status: 'True' }] },
    ...overrides,
  });
  const put = (store: GenericStore, name: string, change: (csr: Csr) => void) =>
    store.update(undefined, name, (current) => {
      const next = structuredClone(current!) as Csr;
      change(next);
      return next;
    });

  before(async () => {
    registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions(), watchCache: false });
    const entry = registry.lookup(GROUP, 'v1', 'certificatesigningrequests')!;
    main = entry.store;
    status = entry.subresources.get('status')!.store;
    approval = entry.subresources.get('approval')!.store;
    request = (await makeCsr({ commonName: 'alice' })).base64;
    certificate = asBytes(await makeCertificatePem('alice'));
  });
  after(() => registry.stop());

  it('writes the requesting user into the spec and clears the status on create', async () => {
    const created = (await main.create(undefined, body(), { user: ALICE })) as Csr;
    assert.equal(created.spec.username, 'alice');
    assert.equal(created.spec.uid, 'alice-uid');
    assert.deepEqual(created.spec.groups, ['devs', 'system:authenticated']);
    assert.deepEqual(created.spec.extra, { scope: ['a', 'b'] });
    assert.deepEqual(created.status, {});
    assert.equal(created.metadata.generation, undefined);
  });

  it('leaves the identity empty when the server itself creates', async () => {
    const created = (await main.create(undefined, body())) as Csr;
    assert.equal(created.spec.username, undefined);
    assert.equal(created.spec.groups, undefined);
  });

  it('refuses an invalid request with upstream messages', async () => {
    await assert.rejects(main.create(undefined, body({ spec: { request: asBytes('x'), signerName: 'nodomain', usages: [] } }), { user: ALICE }), (e: Error) => {
      assert.match(e.message, /^CertificateSigningRequest\.certificates\.k8s\.io "csr-\d+" is invalid: \[spec\.request: Invalid value: "eA==": PEM block type must be CERTIFICATE REQUEST, spec\.usages: Required value, spec\.signerName: Invalid value: "nodomain": must be a fully qualified domain/);
      return true;
    });
  });

  it('keeps spec and status on updates of the main resource', async () => {
    const created = (await main.create(undefined, body(), { user: ALICE })) as Csr;
    const { object } = await put(main, created.metadata.name!, (csr) => {
      csr.metadata.labels = { a: 'b' };
      csr.spec.signerName = 'other.io/x';
      csr.status = { certificate };
    });
    const updated = object as Csr;
    assert.equal(updated.metadata.labels?.a, 'b');
    assert.equal(updated.spec.signerName, 'example.com/signer');
    assert.deepEqual(updated.status, {});
  });

  it('/approval changes only the conditions and stamps them', async () => {
    const created = (await main.create(undefined, body(), { user: ALICE })) as Csr;
    const { object } = await put(approval, created.metadata.name!, (csr) => {
      csr.spec.signerName = 'other.io/x';
      csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }], certificate };
    });
    const updated = object as Csr;
    assert.equal(updated.spec.signerName, 'example.com/signer');
    assert.equal(updated.status?.certificate, undefined);
    const [c] = updated.status?.conditions ?? [];
    assert.equal(c?.type, 'Approved');
    assert.match(c?.lastUpdateTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(c?.lastTransitionTime, c?.lastUpdateTime);
    await assert.rejects(
      put(approval, created.metadata.name!, (csr) => {
        csr.status!.conditions!.push({ type: 'Denied', status: 'True' });
      }),
      /status\.conditions\[1\]\.type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive/,
    );
  });

  it('/status sets the certificate and keeps Approved/Denied as stored', async () => {
    const created = (await main.create(undefined, body(), { user: ALICE })) as Csr;
    const name = created.metadata.name!;
    await put(approval, name, (csr) => {
      csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }] };
    });
    const { object } = await put(status, name, (csr) => {
      csr.spec.signerName = 'other.io/x';
      csr.status!.conditions![0]!.reason = 'changed';
      csr.status!.certificate = certificate;
    });
    const updated = object as Csr;
    assert.equal(updated.spec.signerName, 'example.com/signer');
    assert.equal(updated.status?.conditions?.[0]?.reason, 'R');
    assert.equal(updated.status?.certificate, certificate);
    await assert.rejects(
      put(status, name, (csr) => {
        csr.status!.conditions!.push({ type: 'Denied', status: 'True' });
      }),
      /updates may not add a condition of type "Denied"/,
    );
    await assert.rejects(
      put(status, name, (csr) => {
        csr.status!.certificate = asBytes('junk');
      }),
      /status\.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block/,
    );
    // The main resource cannot take the certificate away: its status stays as stored.
    const { object: kept } = await put(main, name, (csr) => {
      csr.status!.certificate = '';
    });
    assert.equal((kept as Csr).status?.certificate, certificate);
  });

  it('selects by spec.signerName', () => {
    assert.equal(main.strategy.selectableFields?.['spec.signerName']?.({ metadata: {}, spec: { signerName: 'a.b/c' } } as KubeObject), 'a.b/c');
  });

  it('keeps the transition time of an unchanged condition, and stamps a new one', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const conditions = [
      { type: 'Approved', status: 'True' },
      { type: 'Failed', status: 'True', lastUpdateTime: '2025-01-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z' },
      { type: 'Custom', status: 'False' },
    ];
    populateConditionTimestamps(conditions, [{ type: 'Approved', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }, { type: 'Custom', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }], now);
    assert.deepEqual(conditions, [
      { type: 'Approved', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2024-01-01T00:00:00Z' },
      { type: 'Failed', status: 'True', lastUpdateTime: '2025-01-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z' },
      { type: 'Custom', status: 'False', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ]);
  });
});
