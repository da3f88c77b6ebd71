/**
 * The upgrade-aware proxy (upstream's UpgradeAwareHandler for connect
 * subresources): the client's upgrade request goes to the kubelet as it
 * came, minus its credentials (the API server authenticated it already) and
 * with X-Forwarded-For; then bytes flow both ways untouched, so the kubelet's
 * 101 (or its error) and every frame after it reach the client as the
 * kubelet wrote them.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { badRequest } from '../../machinery/status.js';
import type { RequestContext } from '../server/context.js';
import { dialKubelet, type KubeletClientConfig, type KubeletLocation } from './kubelet-client.js';

const DROPPED = new Set(['host', 'authorization', 'content-length', 'x-forwarded-for']);

export async function proxyUpgrade(ctx: RequestContext, config: KubeletClientConfig, location: KubeletLocation, pathAndQuery: string): Promise<void> {
  if (ctx.upgrade === undefined) throw badRequest('Upgrade request required');
  await proxyUpgradeOver(ctx, await dialKubelet(config, location), `${location.host}:${location.port}`, pathAndQuery);
}

/** The same over a connection already open to any backend (pods/proxy, services/proxy, nodes/proxy). */
export async function proxyUpgradeOver(ctx: RequestContext, backend: Duplex, host: string, pathAndQuery: string): Promise<void> {
  const upgrade = ctx.upgrade;
  if (upgrade === undefined) throw badRequest('Upgrade request required');
  const req = ctx.req as import('node:http').IncomingMessage;
  const lines = [`${req.method ?? 'GET'} ${pathAndQuery} HTTP/1.1`, `Host: ${host}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (DROPPED.has(lower) || lower.startsWith('impersonate-')) continue;
    lines.push(`${name}: ${req.rawHeaders[i + 1]!}`);
  }
  const forwarded = req.headers['x-forwarded-for'];
  const remote = req.socket.remoteAddress ?? '';
  lines.push(`X-Forwarded-For: ${forwarded !== undefined && forwarded !== '' ? `${String(forwarded)}, ${remote}` : remote}`);
  backend.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (upgrade.head.length > 0) backend.write(upgrade.head);
  // The socket is the proxy's now: the pipeline's response object lets go of it.
  const res = ctx.res as ServerResponse;
  res.detachSocket(upgrade.socket as Socket);
  const client = upgrade.socket;
  backend.pipe(client);
  client.pipe(backend);
  await new Promise<void>((resolve) => {
    let open = 2;
    const closed = (): void => {
      if (--open > 0) return;
      resolve();
    };
    const end = (): void => {
      backend.destroy();
      client.destroy();
    };
    backend.once('close', () => {
      end();
      closed();
    });
    client.once('close', () => {
      end();
      closed();
    });
    backend.on('error', end);
    client.on('error', end);
  });
  // Requests in flight are tracked by their response's close (the response object never finished).
  res.emit('close');
}
