import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admissionArgs, auditArgs, controllerManagerArgs, describeKubeletRuntime, kubeletArgs, schedulerArgs, SERVER_AUTHORIZATION_MODE } from './server.js';

describe('k8ts server: the controller manager command line', () => {
  it('passes the cluster CA as --root-ca-file, so the root-ca-cert-publisher runs', () => {
    assert.deepEqual(controllerManagerArgs({ clusterCidr: '10.244.0.0/16', controllerManagerArg: ['--v=2'] }, '/d/pki/cm.kubeconfig', 40_002, '/d/pki/ca.crt', '/d/pki/ca.key'), [
      'controller-manager',
      '--kubeconfig',
      '/d/pki/cm.kubeconfig',
      '--secure-port',
      '40002',
      '--cluster-cidr',
      '10.244.0.0/16',
      '--root-ca-file',
      '/d/pki/ca.crt',
      '--cluster-signing-cert-file',
      '/d/pki/ca.crt',
      '--cluster-signing-key-file',
      '/d/pki/ca.key',
      '--controllers',
      '*,bootstrapsigner,tokencleaner',
      '--v=2',
    ]);
  });

  it('leaves the controller list to a pass-through --controllers', () => {
    for (const own of [['--controllers=*,-nodeipam'], ['--controllers', 'deployment']]) {
      const args = controllerManagerArgs({ clusterCidr: '10.244.0.0/16', controllerManagerArg: own }, '/k', 1, '/ca.crt', '/ca.key');
      assert.equal(args.filter((a) => a.startsWith('--controllers')).length, 1);
      assert.ok(!args.includes('*,bootstrapsigner,tokencleaner'));
    }
  });
});

describe('k8ts server: the scheduler command line', () => {
  it('gives the scheduler its own kubeconfig and the free port, then the pass-through flags', () => {
    assert.deepEqual(schedulerArgs({ schedulerArg: ['--leader-elect-retry-period=1s'] }, '/d/pki/scheduler.kubeconfig', 40_001), {
      args: ['scheduler', '--kubeconfig', '/d/pki/scheduler.kubeconfig', '--secure-port', '40001', '--leader-elect-retry-period=1s'],
      port: 40_001,
    });
  });

  it('keeps a --secure-port given through --scheduler-arg, in either spelling', () => {
    assert.deepEqual(schedulerArgs({ schedulerArg: ['--secure-port=10259'] }, '/k', 40_001), { args: ['scheduler', '--kubeconfig', '/k', '--secure-port=10259'], port: 10259 });
    assert.deepEqual(schedulerArgs({ schedulerArg: ['--secure-port', '10300', '--v=2'] }, '/k', 40_001), {
      args: ['scheduler', '--kubeconfig', '/k', '--secure-port', '10300', '--v=2'],
      port: 10300,
    });
    assert.throws(() => schedulerArgs({ schedulerArg: ['--secure-port=http'] }, '/k', 40_001), /invalid port "http"/);
  });
});

describe('k8ts server: the API server\'s audit flags', () => {
  it('audits by default to <data-dir>/logs/audit.log with the built-in policy written once into the data directory', async () => {
    const { mkdtemp, readFile, rm, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'k8ts-audit-args-'));
    try {
      const args = auditArgs({}, dir);
      assert.deepEqual(args, ['--audit-log-path', join(dir, 'logs', 'audit.log'), '--audit-policy-file', join(dir, 'audit-policy.yaml'), '--audit-log-maxsize', '100', '--audit-log-maxbackup', '5']);
      assert.match(await readFile(join(dir, 'audit-policy.yaml'), 'utf8'), /kind: Policy/);
      // A person's edits survive later starts.
      await writeFile(join(dir, 'audit-policy.yaml'), 'edited');
      auditArgs({}, dir);
      assert.equal(await readFile(join(dir, 'audit-policy.yaml'), 'utf8'), 'edited');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes another log and policy, and an empty log path turns auditing off', () => {
    assert.deepEqual(auditArgs({ auditLogPath: '/var/log/a.log', auditPolicyFile: '/etc/p.yaml' }, '/nowhere').slice(0, 4), ['--audit-log-path', '/var/log/a.log', '--audit-policy-file', '/etc/p.yaml']);
    assert.deepEqual(auditArgs({ auditLogPath: '' }, '/nowhere'), []);
  });
});

describe('k8ts server: authorization and admission as upstream clusters run them', () => {
  it('authorizes kubelets with the Node mode before RBAC', () => {
    assert.equal(SERVER_AUTHORIZATION_MODE, 'Node,RBAC');
  });

  it('enables NodeRestriction unless a pass-through flag chooses the plugins itself', () => {
    assert.deepEqual(admissionArgs([]), ['--enable-admission-plugins', 'NodeRestriction']);
    assert.deepEqual(admissionArgs(['--token-auth-file=/t.csv']), ['--enable-admission-plugins', 'NodeRestriction']);
    assert.deepEqual(admissionArgs(['--enable-admission-plugins=NodeRestriction,AlwaysPullImages']), []);
    assert.deepEqual(admissionArgs(['--disable-admission-plugins', 'NodeRestriction']), []);
  });
});

describe('k8ts server: the kubelet command line', () => {
  it("gives the kubelet the node's identity, address and files under the data directory, then the pass-through flags", () => {
    assert.deepEqual(
      kubeletArgs({ nodeIp: '127.0.0.1', kubeletArg: ['--node-status-update-frequency=1s'] }, { dataDir: '/d', nodeName: 'vm', kubeconfig: '/d/pki/kubelet.kubeconfig', clientCaFile: '/d/pki/ca.crt', port: 40_003 }),
      [
        'kubelet',
        '--kubeconfig',
        '/d/pki/kubelet.kubeconfig',
        '--node-name',
        'vm',
        '--node-ip',
        '127.0.0.1',
        '--root-dir',
        '/d/kubelet',
        '--pod-manifest-path',
        '/d/manifests',
        '--images-dir',
        '/d/images',
        '--client-ca-file',
        '/d/pki/ca.crt',
        '--port',
        '40003',
        '--node-status-update-frequency=1s',
      ],
    );
  });

  it('passes the PKI serving certificate when there is one', () => {
    const args = kubeletArgs({ nodeIp: '127.0.0.2', kubeletArg: [] }, { dataDir: '/d', nodeName: 'n', kubeconfig: 'k', clientCaFile: 'ca', port: 1, servingCert: { cert: '/d/pki/kubelet-serving.crt', key: '/d/pki/kubelet-serving.key' } });
    assert.deepEqual(args.slice(args.indexOf('--tls-cert-file'), args.indexOf('--tls-cert-file') + 4), ['--tls-cert-file', '/d/pki/kubelet-serving.crt', '--tls-private-key-file', '/d/pki/kubelet-serving.key']);
  });

  it('says which runtime the kubelet uses', () => {
    assert.match(describeKubeletRuntime([]), /^process runtime \(no containerd socket configured\): containers are host processes/);
    assert.equal(describeKubeletRuntime(['--container-runtime=cri']), 'cri runtime');
    assert.equal(describeKubeletRuntime(['--container-runtime', 'sim']), 'sim runtime');
  });
});

describe('k8ts server: what joining nodes need', () => {
  it('publishes cluster-info, the join RBAC and a join token, and reuses the token on the next start', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { newFakeClient } = await import('../client/testing/fake-client.js');
    const { CONFIG_MAPS } = await import('../client/rest/resources.js');
    const { newCertificateAuthority } = await import('./pki/certificates.js');
    const { parseClusterInfo } = await import('./join/cluster-info.js');
    const { publishJoinInfo } = await import('./server.js');
    const dir = await mkdtemp(join(tmpdir(), 'k8ts-publish-'));
    try {
      const client = newFakeClient();
      const ca = await newCertificateAuthority();
      const o = { dataDir: dir, serverUrl: 'https://127.0.0.1:6443', caPem: ca.certPem, cancelled: () => false };
      const first = await publishJoinInfo(client, o);
      assert.equal(first?.reused, false);
      assert.deepEqual(parseClusterInfo(await client.resource(CONFIG_MAPS).get('cluster-info', { namespace: 'kube-public' })), { server: 'https://127.0.0.1:6443', caPem: ca.certPem });
      const second = await publishJoinInfo(client, o);
      assert.equal(second?.reused, true);
      assert.deepEqual(second?.token, first?.token);
      assert.equal(await publishJoinInfo(client, { ...o, cancelled: () => true }), undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives up with a clear error after its deadline', async () => {
    const { newFakeClient } = await import('../client/testing/fake-client.js');
    const { StatusError } = await import('../machinery/status.js');
    const { publishJoinInfo } = await import('./server.js');
    const client = newFakeClient();
    client.injectError('create', 'configmaps', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }), 1000);
    await assert.rejects(publishJoinInfo(client, { dataDir: '/nonexistent', serverUrl: 'https://h:1', caPem: '', cancelled: () => false, retryMs: 5, timeoutMs: 50 }), /could not publish the join information: boom/);
  });
});
