/**
 * The cluster's PKI on disk: made on the first start of `k8ts server` /
 * `k8ts apiserver`, reused on every later one.
 *
 * Files, under the data directory (keys and kubeconfigs mode 0600,
 * certificates 0644, `pki/` 0700):
 *
 * | file | what |
 * |---|---|
 * | `pki/ca.crt`, `pki/ca.key` | the cluster CA, CN=k8ts-ca, ten years; never regenerated once `ca.crt` exists |
 * | `pki/apiserver.crt`, `pki/apiserver.key` | the API server's serving certificate, CN=kube-apiserver (see {@link apiServerSans}) |
 * | `pki/admin.crt`, `pki/admin.key`, `admin.kubeconfig` | CN=kubernetes-admin, O=system:masters; context `k8ts` |
 * | `pki/controller-manager.{crt,key,kubeconfig}` | CN=system:kube-controller-manager |
 * | `pki/scheduler.{crt,key,kubeconfig}` | CN=system:kube-scheduler |
 * | `pki/proxy.{crt,key,kubeconfig}` | CN=system:kube-proxy |
 * | `pki/dns.{crt,key,kubeconfig}` | CN=system:coredns (the cluster DNS; the bootstrap policy binds ClusterRole system:coredns to it) |
 * | `pki/kubelet.{crt,key,kubeconfig}` | CN=system:node:NAME, O=system:nodes |
 * | `pki/kubelet-serving.crt`, `pki/kubelet-serving.key` | the kubelet's serving certificate, CN=system:node:NAME (see {@link kubeletServingSans}) |
 * | `pki/apiserver-kubelet-client.{crt,key}` | the API server's client certificate for kubelets (logs, exec, port-forward): CN=kube-apiserver-kubelet-client, O=system:masters, as kubeadm made it before 1.29 |
 * | `pki/sa.key`, `pki/sa.pub` | the service-account token signing key pair (service-account-key.ts) |
 *
 * Every kubeconfig names the cluster `k8ts` and the user after the
 * certificate's CN; the admin's context is `k8ts`, the others' `<user>@k8ts`.
 *
 * What a later start keeps and what it replaces:
 * - The CA is kept as it is. `ca.crt` without `ca.key` is an error (nothing
 *   could be signed); `ca.key` without `ca.crt` is a first start that stopped
 *   half-way, and both are made anew.
 * - A serving or client certificate is kept, byte for byte, unless its key is
 *   missing or does not match, it was not signed by the CA, it has the wrong
 *   extended key usage or subject (e.g. the node name changed), it expires
 *   within 30 days, or (serving certificate) it lacks a SAN now needed. Then
 *   that one certificate is issued again, with a new key, from the same CA.
 * - A kubeconfig is rewritten only when its bytes would differ (a new server
 *   URL or a reissued certificate); an edited kubeconfig is therefore replaced.
 *
 * Two processes must not run this on one data directory at the same time.
 */
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalIp, describeCertificate, EXTENDED_KEY_USAGE, isIssuedBy, keyMatchesCertificate, type CertificateInfo } from './certificate-info.js';
import {
  issueClientCertificate,
  issueServingCertificate,
  loadCertificateAuthority,
  newCertificateAuthority,
  type CertificateAuthority,
  type KeyType,
} from './certificates.js';
import { CLUSTER_NAME, renderKubeconfig } from './kubeconfig.js';
import { ensureServiceAccountKey, type ServiceAccountKeyPaths } from './service-account-key.js';
import { writeFileAtomic } from './write-file-atomic.js';

/** Options for {@link ensureClusterPki}. */
export interface ClusterPkiOptions {
  /** The data directory (`--data-dir`); the PKI goes in `<dataDir>/pki/`. */
  dataDir: string;
  /** The API server URL written into every kubeconfig, e.g. `https://127.0.0.1:6443`; its host also becomes a SAN. */
  serverUrl: string;
  /** The node IPs (`--node-ip`), serving certificate SANs. */
  nodeIps: readonly string[];
  /** This machine's host name, a serving certificate SAN. */
  hostName: string;
  /** The first IP of `--service-cluster-ip-range` (the `kubernetes` service), a serving certificate SAN. */
  serviceClusterIp: string;
  /** The node name (`--node-name`); the kubelet's user is `system:node:<nodeName>`. */
  nodeName: string;
  /** More serving certificate SANs, DNS names or IPs (as k3s's `--tls-san`). */
  extraSans?: readonly string[];
  /** Cluster DNS domain (default `cluster.local`). */
  clusterDomain?: string;
  /** Key type of newly made keys (default `ecdsa-p256`). */
  keyType?: KeyType;
  /** The current time (default: now); tests use it to age certificates. */
  now?: Date;
}

/** The client identities the cluster's own components use, by key. */
export type ClusterIdentity = 'admin' | 'controllerManager' | 'scheduler' | 'proxy' | 'dns' | 'kubelet';

/** Paths of a client certificate and its key. */
export interface ClientCertificatePaths {
  readonly cert: string;
  readonly key: string;
}

/** What {@link ensureClusterPki} returns: the paths of everything it keeps. */
export interface ClusterPki {
  /** `<dataDir>/pki`. */
  readonly pkiDir: string;
  readonly caCert: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
  /** `<dataDir>/admin.kubeconfig`, the same as `kubeconfigs.admin`. */
  readonly adminKubeconfig: string;
  /** Kubeconfig of each identity. */
  readonly kubeconfigs: Readonly<Record<ClusterIdentity, string>>;
  /** Client certificate and key of each identity. */
  readonly clientCertificates: Readonly<Record<ClusterIdentity, ClientCertificatePaths>>;
  /** The service-account token signing key (`pki/sa.key`) and its public key (`pki/sa.pub`). */
  readonly serviceAccountKey: ServiceAccountKeyPaths;
  /** The kubelet's serving certificate and key (`k8ts kubelet --tls-cert-file/--tls-private-key-file`). */
  readonly kubeletServingCert: string;
  readonly kubeletServingKey: string;
  /** The API server's client certificate for kubelets (`k8ts apiserver --kubelet-client-certificate/--kubelet-client-key`). */
  readonly apiserverKubeletClient: ClientCertificatePaths;
  /** The files this call created or replaced, in the order written (empty when everything was kept). */
  readonly written: readonly string[];
}

/** A client identity: its user name and groups, and the base name of its files under `pki/`. */
export interface IdentitySpec {
  readonly identity: ClusterIdentity;
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly fileName: string;
}

/** The identities of the cluster's components, with upstream's user names and groups. */
export function clusterIdentities(nodeName: string): readonly IdentitySpec[] {
  return [
    { identity: 'admin', commonName: 'kubernetes-admin', organizations: ['system:masters'], fileName: 'admin' },
    { identity: 'controllerManager', commonName: 'system:kube-controller-manager', organizations: [], fileName: 'controller-manager' },
    { identity: 'scheduler', commonName: 'system:kube-scheduler', organizations: [], fileName: 'scheduler' },
    { identity: 'proxy', commonName: 'system:kube-proxy', organizations: [], fileName: 'proxy' },
    { identity: 'dns', commonName: 'system:coredns', organizations: [], fileName: 'dns' },
    { identity: 'kubelet', commonName: `system:node:${nodeName}`, organizations: ['system:nodes'], fileName: 'kubelet' },
  ];
}

/** Subject alternative names of the API server's serving certificate. */
export interface ServingSans {
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

/**
 * The serving certificate's SANs: DNS localhost, kubernetes,
 * kubernetes.default, kubernetes.default.svc, kubernetes.default.svc.<domain>
 * and the host name; IPs 127.0.0.1, ::1, the node IPs and the service IP; the
 * server URL's host; and any extra SANs. Deduplicated, IPs canonical.
 */
export function apiServerSans(
  options: Pick<ClusterPkiOptions, 'hostName' | 'nodeIps' | 'serviceClusterIp' | 'serverUrl' | 'extraSans' | 'clusterDomain'>,
): ServingSans {
  const domain = options.clusterDomain ?? 'cluster.local';
  const urlHost = new URL(options.serverUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  const candidates = [
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    `kubernetes.default.svc.${domain}`,
    options.hostName,
    '127.0.0.1',
    '::1',
    ...options.nodeIps,
    options.serviceClusterIp,
    urlHost,
    ...(options.extraSans ?? []),
  ];
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const name of candidates) {
    if (name === '') continue;
    if (looksLikeIp(name)) {
      const ip = canonicalIp(name);
      if (!ipAddresses.includes(ip)) ipAddresses.push(ip);
    } else if (!dnsNames.some((d) => d.toLowerCase() === name.toLowerCase())) {
      dnsNames.push(name);
    }
  }
  return { dnsNames, ipAddresses };
}

/**
 * The kubelet serving certificate's SANs: the node name and localhost as DNS
 * names, the node IPs, 127.0.0.1 and ::1.
 */
export function kubeletServingSans(options: Pick<ClusterPkiOptions, 'nodeName' | 'nodeIps'>): ServingSans {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const name of [options.nodeName, 'localhost', ...options.nodeIps, '127.0.0.1', '::1']) {
    if (name === '') continue;
    if (looksLikeIp(name)) {
      const ip = canonicalIp(name);
      if (!ipAddresses.includes(ip)) ipAddresses.push(ip);
    } else if (!dnsNames.some((d) => d.toLowerCase() === name.toLowerCase())) dnsNames.push(name);
  }
  return { dnsNames, ipAddresses };
}

/** The API server's identity towards kubelets. */
export const APISERVER_KUBELET_CLIENT = { commonName: 'kube-apiserver-kubelet-client', organizations: ['system:masters'] } as const;

/** A certificate expiring sooner than this is reissued at start. */
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Makes the cluster's CA, serving certificate, client certificates and
 * kubeconfigs where they are missing, and keeps those that exist and are
 * still right (see the module comment for the rules). Returns their paths.
 */
export async function ensureClusterPki(options: ClusterPkiOptions): Promise<ClusterPki> {
  const now = options.now ?? new Date();
  const keyType = options.keyType ?? 'ecdsa-p256';
  const pkiDir = join(options.dataDir, 'pki');
  await mkdir(options.dataDir, { recursive: true });
  await mkdir(pkiDir, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  const caCert = join(pkiDir, 'ca.crt');
  const caKey = join(pkiDir, 'ca.key');
  const ca = await ensureCertificateAuthority({ caCert, caKey, keyType, now, written });

  const servingCert = join(pkiDir, 'apiserver.crt');
  const servingKey = join(pkiDir, 'apiserver.key');
  const sans = apiServerSans(options);
  await ensureLeaf({
    certPath: servingCert,
    keyPath: servingKey,
    ca,
    now,
    written,
    fits: (info) => info.extendedKeyUsages.includes(EXTENDED_KEY_USAGE.serverAuth) && coversSans(info, sans),
    issue: () => issueServingCertificate(ca, { ...sans, keyType, now }),
  });

  const adminKubeconfig = join(options.dataDir, 'admin.kubeconfig');
  const kubeconfigs: Partial<Record<ClusterIdentity, string>> = {};
  const clientCertificates: Partial<Record<ClusterIdentity, ClientCertificatePaths>> = {};
  for (const spec of clusterIdentities(options.nodeName)) {
    const cert = join(pkiDir, `${spec.fileName}.crt`);
    const key = join(pkiDir, `${spec.fileName}.key`);
    const pair = await ensureLeaf({
      certPath: cert,
      keyPath: key,
      ca,
      now,
      written,
      fits: (info) =>
        info.extendedKeyUsages.includes(EXTENDED_KEY_USAGE.clientAuth) &&
        info.commonName === spec.commonName &&
        sameList(info.organizations, spec.organizations),
      issue: () =>
        issueClientCertificate(ca, { commonName: spec.commonName, organizations: spec.organizations, keyType, now }),
    });
    const kubeconfig = spec.identity === 'admin' ? adminKubeconfig : join(pkiDir, `${spec.fileName}.kubeconfig`);
    const rendered = renderKubeconfig({
      serverUrl: options.serverUrl,
      caCertPem: ca.certPem,
      clientCertPem: pair.certPem,
      clientKeyPem: pair.keyPem,
      userName: spec.commonName,
      clusterName: CLUSTER_NAME,
      contextName: spec.identity === 'admin' ? CLUSTER_NAME : `${spec.commonName}@${CLUSTER_NAME}`,
    });
    await ensureFile({ path: kubeconfig, content: rendered, mode: 0o600, written });
    kubeconfigs[spec.identity] = kubeconfig;
    clientCertificates[spec.identity] = { cert, key };
  }

  const kubeletServingCert = join(pkiDir, 'kubelet-serving.crt');
  const kubeletServingKey = join(pkiDir, 'kubelet-serving.key');
  const kubeletSans = kubeletServingSans(options);
  const kubeletCommonName = `system:node:${options.nodeName}`;
  await ensureLeaf({
    certPath: kubeletServingCert,
    keyPath: kubeletServingKey,
    ca,
    now,
    written,
    fits: (info) => info.extendedKeyUsages.includes(EXTENDED_KEY_USAGE.serverAuth) && info.commonName === kubeletCommonName && coversSans(info, kubeletSans),
    issue: () => issueServingCertificate(ca, { ...kubeletSans, commonName: kubeletCommonName, keyType, now }),
  });

  const apiserverKubeletClient = { cert: join(pkiDir, 'apiserver-kubelet-client.crt'), key: join(pkiDir, 'apiserver-kubelet-client.key') };
  await ensureLeaf({
    certPath: apiserverKubeletClient.cert,
    keyPath: apiserverKubeletClient.key,
    ca,
    now,
    written,
    fits: (info) =>
      info.extendedKeyUsages.includes(EXTENDED_KEY_USAGE.clientAuth) &&
      info.commonName === APISERVER_KUBELET_CLIENT.commonName &&
      sameList(info.organizations, APISERVER_KUBELET_CLIENT.organizations),
    issue: () => issueClientCertificate(ca, { ...APISERVER_KUBELET_CLIENT, keyType, now }),
  });

  const serviceAccountKey = await ensureServiceAccountKey(pkiDir, written);

  return {
    pkiDir,
    serviceAccountKey,
    caCert,
    caKey,
    servingCert,
    servingKey,
    adminKubeconfig,
    kubeconfigs: complete(kubeconfigs),
    clientCertificates: complete(clientCertificates),
    kubeletServingCert,
    kubeletServingKey,
    apiserverKubeletClient,
    written,
  };
}

interface EnsureCaOptions {
  caCert: string;
  caKey: string;
  keyType: KeyType;
  now: Date;
  written: string[];
}

async function ensureCertificateAuthority(options: EnsureCaOptions): Promise<CertificateAuthority> {
  const certPem = await readOptional(options.caCert);
  const keyPem = await readOptional(options.caKey);
  if (certPem !== undefined) {
    if (keyPem === undefined) {
      throw new Error(`CA certificate ${options.caCert} exists but its key ${options.caKey} does not: restore the key or remove both`);
    }
    await restrictMode(options.caKey);
    try {
      return await loadCertificateAuthority(certPem, keyPem);
    } catch (e: unknown) {
      throw new Error(`loading the CA from ${options.caCert} and ${options.caKey} failed`, { cause: e });
    }
  }
  const ca = await newCertificateAuthority({ keyType: options.keyType, now: options.now });
  // Key first: a ca.crt on disk always has its key beside it.
  await writeFileAtomic(options.caKey, ca.keyPem, { mode: 0o600 });
  await writeFileAtomic(options.caCert, ca.certPem, { mode: 0o644 });
  options.written.push(options.caKey, options.caCert);
  return ca;
}

interface EnsureLeafOptions {
  certPath: string;
  keyPath: string;
  ca: CertificateAuthority;
  now: Date;
  written: string[];
  /** Whether an existing certificate (already known to match its key and the CA) is still what is wanted. */
  fits: (info: CertificateInfo) => boolean;
  issue: () => Promise<{ certPem: string; keyPem: string }>;
}

async function ensureLeaf(options: EnsureLeafOptions): Promise<{ certPem: string; keyPem: string }> {
  const certPem = await readOptional(options.certPath);
  const keyPem = await readOptional(options.keyPath);
  if (certPem !== undefined && keyPem !== undefined && isUsable(certPem, keyPem, options)) {
    await restrictMode(options.keyPath);
    return { certPem, keyPem };
  }
  const issued = await options.issue();
  await writeFileAtomic(options.keyPath, issued.keyPem, { mode: 0o600 });
  await writeFileAtomic(options.certPath, issued.certPem, { mode: 0o644 });
  options.written.push(options.keyPath, options.certPath);
  return issued;
}

function isUsable(certPem: string, keyPem: string, options: EnsureLeafOptions): boolean {
  if (!keyMatchesCertificate(certPem, keyPem) || !isIssuedBy(certPem, options.ca.certPem)) return false;
  let info: CertificateInfo;
  try {
    info = describeCertificate(certPem);
  } catch (e: unknown) {
    return false;
  }
  const caNotAfter = new Date(options.ca.certificate.validTo).getTime();
  const expiresSoon = info.notAfter.getTime() - options.now.getTime() < RENEW_BEFORE_MS;
  // A leaf clamped to its CA's end cannot be renewed for longer: keep it rather than reissue on every start.
  if (expiresSoon && info.notAfter.getTime() < caNotAfter) return false;
  return options.fits(info);
}

async function ensureFile(options: { path: string; content: string; mode: number; written: string[] }): Promise<void> {
  if ((await readOptional(options.path)) === options.content) {
    await restrictMode(options.path);
    return;
  }
  await writeFileAtomic(options.path, options.content, { mode: options.mode });
  options.written.push(options.path);
}

/** Brings a private file left group- or world-readable back to 0600. */
async function restrictMode(path: string): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o777) !== 0o600) await chmod(path, 0o600);
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e: unknown) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') return undefined;
    throw new Error(`reading ${path} failed`, { cause: e });
  }
}

function coversSans(info: CertificateInfo, wanted: ServingSans): boolean {
  const dns = new Set(info.dnsNames.map((d) => d.toLowerCase()));
  return (
    wanted.dnsNames.every((d) => dns.has(d.toLowerCase())) && wanted.ipAddresses.every((ip) => info.ipAddresses.includes(ip))
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function looksLikeIp(name: string): boolean {
  return /^[0-9.]+$/.test(name) || name.includes(':');
}

function complete<T>(partial: Partial<Record<ClusterIdentity, T>>): Record<ClusterIdentity, T> {
  const { admin, controllerManager, scheduler, proxy, dns, kubelet } = partial;
  if (admin === undefined || controllerManager === undefined || scheduler === undefined || proxy === undefined || dns === undefined || kubelet === undefined) {
    throw new Error('internal error: an identity was skipped');
  }
  return { admin, controllerManager, scheduler, proxy, dns, kubelet };
}
