import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isAlreadyExists, StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { bootstrap } from '../../../bootstrap.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import type { GenericStore } from '../../generic/store.js';
import { Registry } from '../../registry.js';
import type { ServiceObject, ServiceSpec } from './service-helpers.js';

interface Cluster {
  readonly registry: Registry;
  readonly services: GenericStore;
  readonly status: GenericStore;
  readonly storage: ObjectStorage;
}

/** One API server's registry, with the `default` namespace; several may share one storage. */
async function newCluster(storage = new ObjectStorage(newMemoryStorage())): Promise<Cluster> {
  const registry = new Registry({
    scheme: newBuiltinScheme(),
    storage,
    prefix: '/registry',
    definitions: builtinDefinitions({ services: { clusterIPRange: '10.96.0.0/24', nodePortRange: '30000-32767' } }),
    watchCache: false,
  });
  await registry
    .store('', 'v1', 'namespaces')
    .create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })
    .catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  const entry = registry.lookup('', 'v1', 'services')!;
  return { registry, services: entry.store, status: entry.subresources.get('status')!.store, storage };
}

const service = (name: string, spec: ServiceSpec, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, ...extra },
  spec,
});

const nodePortService = (name: string, spec: ServiceSpec = {}): KubeObject =>
  service(name, { type: 'NodePort', selector: { app: name }, ports: [{ port: 80 }], ...spec });

const specOf = (o: KubeObject): ServiceSpec => (o as ServiceObject).spec!;

/** The names of the allocation keys under a prefix. */
async function keys(storage: ObjectStorage, what: 'ipaddresses' | 'servicenodeports'): Promise<string[]> {
  const list = await storage.list(`/registry/${what}/`);
  return list.items.map((o) => o.metadata.name!);
}

async function rejectsWith(p: Promise<unknown>, code: number, message: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof StatusError, `a StatusError, got ${String(e)}`);
    assert.equal(e.status.message, message);
    assert.equal(e.code, code);
    return true;
  });
}

describe('ServiceStore create', () => {
  it('allocates a cluster IP and node ports and fills in the family fields and status', async () => {
    const { services, storage } = await newCluster();
    const created = await services.create('default', nodePortService('web', { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] }));
    const spec = specOf(created);
    assert.match(spec.clusterIP!, /^10\.96\.0\.(\d+)$/);
    assert.notEqual(spec.clusterIP, '10.96.0.0');
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.deepEqual(spec.ipFamilies, ['IPv4']);
    assert.equal(spec.ipFamilyPolicy, 'SingleStack');
    assert.equal(spec.externalTrafficPolicy, 'Cluster');
    const nodePorts = spec.ports!.map((p) => p.nodePort!);
    assert.ok(nodePorts.every((p) => p >= 30000 && p <= 32767));
    assert.notEqual(nodePorts[0], nodePorts[1]);
    assert.deepEqual((created as ServiceObject).status, { loadBalancer: {} });
    assert.deepEqual(await keys(storage, 'ipaddresses'), [spec.clusterIP]);
    assert.deepEqual((await keys(storage, 'servicenodeports')).sort(), nodePorts.map(String).sort());
    assert.deepEqual(specOf(await services.get('default', 'web')).clusterIP, spec.clusterIP);
  });

  it('honours a requested address and node port, and refuses them once taken, with upstream texts', async () => {
    const { services } = await newCluster();
    const a = await services.create('default', nodePortService('a', { clusterIP: '10.96.0.50', ports: [{ port: 80, nodePort: 30080 }] }));
    assert.equal(specOf(a).clusterIP, '10.96.0.50');
    assert.equal(specOf(a).ports![0]!.nodePort, 30080);
    await rejectsWith(
      services.create('default', nodePortService('b', { clusterIP: '10.96.0.50' })),
      422,
      'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated',
    );
    await rejectsWith(
      services.create('default', nodePortService('b', { ports: [{ port: 80, nodePort: 30080 }] })),
      422,
      'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    await rejectsWith(
      services.create('default', nodePortService('b', { clusterIP: '10.97.0.1' })),
      422,
      'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.97.0.1"}: failed to allocate IP 10.97.0.1: the provided network does not match the current range',
    );
    await rejectsWith(
      services.create('default', nodePortService('b', { ports: [{ port: 80, nodePort: 80 }] })),
      422,
      'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    await rejectsWith(
      services.create('default', service('b', { clusterIPs: ['10.96.0.51'], ports: [{ port: 80 }] })),
      422,
      'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.51"}: must be empty when `clusterIP` is not specified',
    );
  });

  it('gives headless and ExternalName services no address, and ClusterIP services no node port', async () => {
    const { services, storage } = await newCluster();
    const headless = await services.create('default', service('h', { clusterIP: 'None', selector: { app: 'h' }, ports: [{ port: 80 }] }));
    assert.deepEqual(specOf(headless).clusterIPs, ['None']);
    assert.deepEqual(specOf(headless).ipFamilies, ['IPv4']);
    assert.equal(specOf(headless).ipFamilyPolicy, 'SingleStack');
    // Headless without selector: upstream asks for both families, even on a single-stack cluster.
    const bare = await services.create('default', service('hb', { clusterIP: 'None' }));
    assert.equal(specOf(bare).ipFamilyPolicy, 'RequireDualStack');
    assert.deepEqual(specOf(bare).ipFamilies, ['IPv4', 'IPv6']);
    const external = await services.create('default', service('x', { type: 'ExternalName', externalName: 'example.com' }));
    assert.equal(specOf(external).clusterIP, undefined);
    assert.equal(specOf(external).ipFamilies, undefined);
    const plain = await services.create('default', service('p', { ports: [{ port: 80 }] }));
    assert.equal(specOf(plain).ports![0]!.nodePort, undefined);
    assert.deepEqual(await keys(storage, 'ipaddresses'), [specOf(plain).clusterIP]);
    assert.deepEqual(await keys(storage, 'servicenodeports'), []);
  });

  it('checks the namespace before allocating anything, as admission comes first upstream', async () => {
    const { services, storage } = await newCluster();
    await services.create('default', nodePortService('a', { clusterIP: '10.96.0.40' }));
    await rejectsWith(services.create('missing', nodePortService('b', { clusterIP: '10.96.0.40' })), 404, 'namespaces "missing" not found');
    await rejectsWith(services.create('missing', nodePortService('c')), 404, 'namespaces "missing" not found');
    assert.deepEqual(await keys(storage, 'ipaddresses'), ['10.96.0.40']);
    assert.equal((await keys(storage, 'servicenodeports')).length, 1);
  });

  it('refuses families the cluster has no range for', async () => {
    const { services } = await newCluster();
    await rejectsWith(
      services.create('default', service('v6', { ipFamilies: ['IPv6'], ports: [{ port: 80 }] })),
      422,
      'Service "v6" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster',
    );
    await rejectsWith(
      services.create('default', service('ds', { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] })),
      422,
      'Service "ds" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
  });

  it('gives back what it allocated when the write or the validation fails', async () => {
    const { services, storage } = await newCluster();
    await services.create('default', nodePortService('a', { clusterIP: '10.96.0.60', ports: [{ port: 80, nodePort: 30060 }] }));
    await rejectsWith(
      services.create('default', nodePortService('a', { clusterIP: '10.96.0.61', ports: [{ port: 80, nodePort: 30061 }] })),
      409,
      'services "a" already exists',
    );
    await rejectsWith(
      services.create('default', nodePortService('bad', { clusterIP: '10.96.0.62', ports: [{ port: 80, name: 'Not_A_Label' }] })),
      422,
      `Service "bad" is invalid: spec.ports[0].name: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
    assert.deepEqual(await keys(storage, 'ipaddresses'), ['10.96.0.60']);
    assert.deepEqual(await keys(storage, 'servicenodeports'), ['30060']);
  });

  it('refuses to create again a service that holds the address it asks for on the address, as upstream does', async () => {
    const { services } = await newCluster();
    await services.create('default', nodePortService('dns', { clusterIP: '10.96.0.10' }));
    await rejectsWith(
      services.create('default', nodePortService('dns', { clusterIP: '10.96.0.10' })),
      422,
      'Service "dns" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
  });

  it('lets a second API server bootstrap the kubernetes Service another one made (AlreadyExists, not a taken address)', async () => {
    const storage = new ObjectStorage(newMemoryStorage());
    const first = await newCluster(storage);
    const second = await newCluster(storage);
    const options = { kubernetesServiceIP: '10.96.0.1', advertiseAddress: '127.0.0.1', securePort: 6443 };
    await bootstrap({ registry: first.registry, ...options });
    await bootstrap({ registry: second.registry, ...options });
    assert.equal(specOf(await second.services.get('default', 'kubernetes')).clusterIP, '10.96.0.1');
    assert.deepEqual(await keys(storage, 'ipaddresses'), ['10.96.0.1']);
  });

  it('allocates nothing in a dry run and answers upstream’s placeholder values', async () => {
    const { services, storage } = await newCluster();
    const dry = await services.create('default', nodePortService('d'), { dryRun: true });
    assert.equal(specOf(dry).clusterIP, '10.96.0.0');
    assert.equal(specOf(dry).ports![0]!.nodePort, 32769);
    assert.deepEqual(await keys(storage, 'ipaddresses'), []);
    assert.deepEqual(await keys(storage, 'servicenodeports'), []);
    await assert.rejects(services.get('default', 'd'), { code: 404 });
  });
});

describe('ServiceStore delete', () => {
  it('releases the address and node ports, which can then be requested again', async () => {
    const { services, storage } = await newCluster();
    const a = await services.create('default', nodePortService('a'));
    const ip = specOf(a).clusterIP!;
    const port = specOf(a).ports![0]!.nodePort!;
    await services.delete('default', 'a', { dryRun: true });
    assert.deepEqual(await keys(storage, 'ipaddresses'), [ip], 'a dry-run delete releases nothing');
    await services.delete('default', 'a');
    assert.deepEqual(await keys(storage, 'ipaddresses'), []);
    assert.deepEqual(await keys(storage, 'servicenodeports'), []);
    const b = await services.create('default', nodePortService('b', { clusterIP: ip, ports: [{ port: 80, nodePort: port }] }));
    assert.equal(specOf(b).clusterIP, ip);
  });

  it('releases when removing the last finalizer finishes a deletion', async () => {
    const { services, storage } = await newCluster();
    await services.create('default', nodePortService('f', { clusterIP: '10.96.0.70' }), {});
    await services.update('default', 'f', (current) => {
      const next = structuredClone(current!);
      next.metadata.finalizers = ['service.kubernetes.io/load-balancer-cleanup'];
      return next;
    });
    const marked = await services.delete('default', 'f');
    assert.equal(marked.deleted, false);
    assert.deepEqual(await keys(storage, 'ipaddresses'), ['10.96.0.70'], 'held while the finalizer is there');
    await services.update('default', 'f', (current) => {
      const next = structuredClone(current!);
      delete next.metadata.finalizers;
      return next;
    });
    await assert.rejects(services.get('default', 'f'), { code: 404 });
    assert.deepEqual(await keys(storage, 'ipaddresses'), []);
    assert.deepEqual(await keys(storage, 'servicenodeports'), []);
  });
});

describe('ServiceStore update', () => {
  const put = (store: GenericStore, name: string, change: (s: ServiceSpec) => void) =>
    store.update('default', name, (current) => {
      const next = structuredClone(current!) as ServiceObject;
      change(next.spec!);
      return next;
    });

  it('keeps the node ports while the type keeps them, and releases them when it changes away', async () => {
    const { services, storage } = await newCluster();
    const a = await services.create('default', nodePortService('a'));
    const port = specOf(a).ports![0]!.nodePort!;
    const same = await put(services, 'a', (s) => {
      s.selector = { app: 'other' };
    });
    assert.equal(specOf(same.object).ports![0]!.nodePort, port);
    const clusterIP = await put(services, 'a', (s) => {
      s.type = 'ClusterIP';
    });
    assert.equal(specOf(clusterIP.object).ports![0]!.nodePort, undefined);
    assert.equal(specOf(clusterIP.object).externalTrafficPolicy, undefined);
    assert.deepEqual(await keys(storage, 'servicenodeports'), []);
    assert.deepEqual(await keys(storage, 'ipaddresses'), [specOf(a).clusterIP]);
  });

  it('fills in what the client left out (a replace of the original YAML succeeds)', async () => {
    const { services } = await newCluster();
    const a = await services.create('default', nodePortService('a'));
    const replaced = await services.update('default', 'a', () => nodePortService('a'));
    assert.equal(specOf(replaced.object).clusterIP, specOf(a).clusterIP);
    assert.equal(specOf(replaced.object).ports![0]!.nodePort, specOf(a).ports![0]!.nodePort);
  });

  it('refuses a new cluster IP without allocating it', async () => {
    const { services, storage } = await newCluster();
    await services.create('default', nodePortService('a', { clusterIP: '10.96.0.80' }));
    await rejectsWith(
      put(services, 'a', (s) => {
        s.clusterIP = '10.96.0.81';
      }),
      422,
      'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.81"}: may not change once set',
    );
    assert.deepEqual(await keys(storage, 'ipaddresses'), ['10.96.0.80']);
  });

  it('releases the address when becoming ExternalName and allocates one when leaving it', async () => {
    const { services, storage } = await newCluster();
    await services.create('default', service('a', { clusterIP: '10.96.0.90', ports: [{ port: 80 }] }));
    const external = await put(services, 'a', (s) => {
      s.type = 'ExternalName';
      s.externalName = 'example.com';
    });
    assert.equal(specOf(external.object).clusterIP, undefined);
    assert.equal(specOf(external.object).ipFamilies, undefined);
    assert.equal(specOf(external.object).internalTrafficPolicy, undefined);
    assert.deepEqual(await keys(storage, 'ipaddresses'), []);
    const back = await put(services, 'a', (s) => {
      s.type = 'NodePort';
      delete s.externalName;
    });
    assert.match(specOf(back.object).clusterIP!, /^10\.96\.0\./);
    assert.deepEqual(await keys(storage, 'ipaddresses'), [specOf(back.object).clusterIP]);
    assert.equal((await keys(storage, 'servicenodeports')).length, 1);
  });

  it('gives back what a lost compare-and-swap attempt claimed', async () => {
    const { services, storage } = await newCluster();
    await services.create('default', service('r', { type: 'ExternalName', externalName: 'example.com' }));
    let attempts = 0;
    const result = await services.update('default', 'r', async (current) => {
      attempts++;
      if (attempts === 1) {
        // Someone else writes in between: this attempt loses and runs again.
        await services.update('default', 'r', (c) => ({ ...structuredClone(c!), metadata: { ...c!.metadata, labels: { touched: 'yes' } } }));
      }
      const next = structuredClone(current!) as ServiceObject;
      next.spec = { type: 'NodePort', ports: [{ port: 80 }] };
      return next;
    });
    assert.equal(attempts, 2);
    assert.deepEqual(await keys(storage, 'ipaddresses'), [specOf(result.object).clusterIP]);
    assert.deepEqual(await keys(storage, 'servicenodeports'), [String(specOf(result.object).ports![0]!.nodePort)]);
  });

  it('lets /status change only the status, allocating and releasing nothing', async () => {
    const { services, status, storage } = await newCluster();
    const lb = await services.create('default', service('lb', { type: 'LoadBalancer', ports: [{ port: 80 }] }));
    const before = { ips: await keys(storage, 'ipaddresses'), ports: await keys(storage, 'servicenodeports') };
    const updated = await status.update('default', 'lb', (current) => {
      const next = structuredClone(current!) as ServiceObject;
      next.spec = { type: 'ClusterIP', ports: [{ port: 81 }] };
      next.status = { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } };
      return next;
    });
    assert.deepEqual(specOf(updated.object), specOf(lb));
    assert.deepEqual((updated.object as ServiceObject).status, { loadBalancer: { ingress: [{ ip: '192.0.2.10', ipMode: 'VIP' }] } });
    assert.deepEqual({ ips: await keys(storage, 'ipaddresses'), ports: await keys(storage, 'servicenodeports') }, before);
  });
});

describe('ServiceStore on two API servers sharing one store', () => {
  it('never hands out one address or node port twice', async () => {
    const storage = new ObjectStorage(newMemoryStorage());
    const servers = [await newCluster(storage), await newCluster(storage)];
    const created = await Promise.all(Array.from({ length: 60 }, (_, i) => servers[i % 2]!.services.create('default', nodePortService(`s${i}`))));
    const ips = created.map((o) => specOf(o).clusterIP!);
    const ports = created.map((o) => specOf(o).ports![0]!.nodePort!);
    assert.equal(new Set(ips).size, 60);
    assert.equal(new Set(ports).size, 60);
    assert.equal((await keys(storage, 'ipaddresses')).length, 60);

    const contenders = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => servers[i % 2]!.services.create('default', nodePortService(`c${i}`, { clusterIP: '10.96.0.5' }))),
    );
    assert.equal(contenders.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of contenders) {
      if (r.status === 'rejected') assert.match((r.reason as Error).message, /failed to allocate IP 10\.96\.0\.5: provided IP is already allocated$/);
    }
  });
});
