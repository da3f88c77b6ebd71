/**
 * For unit tests: a tiny HTTPS server on 127.0.0.1 that answers GET of
 * kube-public/cluster-info with what the test sets, its serving certificate
 * issued by a test CA (or by another CA, to play an impostor).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueServingCertificate, type CertificateAuthority } from '../../pki/certificates.js';

export interface ClusterInfoServer {
  readonly url: string;
  /** What the next GET answers: a status and a JSON body. */
  answer: { status: number; body: unknown };
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startClusterInfoServer(servingCa: CertificateAuthority): Promise<ClusterInfoServer> {
  const serving = await issueServingCertificate(servingCa, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const state: { answer: { status: number; body: unknown }; requests: string[] } = { answer: { status: 404, body: {} }, requests: [] };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    state.requests.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? ''}`);
    res.writeHead(state.answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(state.answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    get answer() {
      return state.answer;
    },
    set answer(a) {
      state.answer = a;
    },
    requests: state.requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
