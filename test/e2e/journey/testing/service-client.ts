/**
 * Requests to the hello Service, one new connection each (so that the proxy
 * chooses a backend for each), answered `hello from <pod name>`. From this
 * process (the process runtime: the userspace proxy serves cluster IPs on the
 * machine's loopback) or from inside a network namespace (the cri node: the
 * iptables proxy's rules live there) through a small helper process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';

/** The pod that answered, or an error message. */
export type Answer = { readonly pod: string } | { readonly error: string };

export interface ServiceClient {
  ask(host: string, port: number, timeoutMs?: number): Promise<Answer>;
  close(): void;
}

/** One GET / on a fresh connection (node:http's agent: false); the answer's pod name. */
export function askOnce(host: string, port: number, timeoutMs = 3000): Promise<Answer> {
  return new Promise((resolve) => {
    const request = get({ host, port, path: '/', agent: false, timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (c: string) => (body += c));
      response.on('end', () => {
        const pod = /^hello from (\S+)/.exec(body)?.[1];
        resolve(response.statusCode === 200 && pod !== undefined ? { pod } : { error: `HTTP ${response.statusCode}: ${body}` });
      });
      response.on('error', (e) => resolve({ error: e.message }));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (e) => resolve({ error: e.message }));
  });
}

export function hostServiceClient(): ServiceClient {
  return { ask: askOnce, close: () => undefined };
}

/** The helper inside the namespace: a line {id, host, port, timeoutMs} in, a line {id, pod|error} out. */
const ASKER = `
const { get } = require('node:http');
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const { id, host, port, timeoutMs } = JSON.parse(line);
  const done = (r) => process.stdout.write(JSON.stringify({ id, ...r }) + '\\n');
  const req = get({ host, port, path: '/', agent: false, timeout: timeoutMs }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c) => (body += c));
    res.on('end', () => {
      const m = /^hello from (\\S+)/.exec(body);
      done(res.statusCode === 200 && m ? { pod: m[1] } : { error: 'HTTP ' + res.statusCode + ': ' + body });
    });
  });
  req.on('timeout', () => req.destroy(new Error('no answer within ' + timeoutMs + ' ms')));
  req.on('error', (e) => done({ error: e.message }));
});
rl.on('close', () => process.exit(0));
`;

export function netnsServiceClient(netns: string): ServiceClient {
  const child: ChildProcess = spawn('nsenter', [`--net=/run/netns/${netns}`, process.execPath, '-e', ASKER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map<number, (a: Answer) => void>();
  let next = 0;
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const r = JSON.parse(buffered.slice(0, newline)) as { id: number; pod?: string; error?: string };
      buffered = buffered.slice(newline + 1);
      pending.get(r.id)?.(r.pod !== undefined ? { pod: r.pod } : { error: r.error ?? 'unknown' });
      pending.delete(r.id);
    }
  });
  child.on('close', () => {
    for (const resolve of pending.values()) resolve({ error: 'the helper in the network namespace exited' });
    pending.clear();
  });
  return {
    ask: (host, port, timeoutMs = 3000) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve({ error: 'the helper in the network namespace exited' });
        const id = next++;
        pending.set(id, resolve);
        child.stdin!.write(`${JSON.stringify({ id, host, port, timeoutMs })}\n`);
      }),
    close: () => void child.stdin!.end(),
  };
}
