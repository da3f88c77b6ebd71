/**
 * pods/log, pods/exec, pods/attach and pods/portforward: the API server finds
 * the pod, checks the container as upstream's LogLocation/streamLocation do,
 * and hands the request to the kubelet of the pod's node (../../../kubelet/):
 * logs are fetched and streamed back (with follow, until the kubelet ends
 * them), the others are connect requests whose HTTP/1.1 upgrade is proxied
 * to the kubelet both ways. The user's right to do so was already decided by
 * the pipeline (get/create on pods/exec …).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { forbidden as forbiddenField, invalid as invalidField, type FieldError } from '../../../../machinery/field-errors.js';
import { badRequest, invalid } from '../../../../machinery/status.js';
import type { Target, VerbHandler } from '../../../endpoints/target.js';
import { kubeletError, kubeletGet, kubeletLocation, type KubeletClientConfig } from '../../../kubelet/kubelet-client.js';
import { proxyUpgrade } from '../../../kubelet/upgrade-proxy.js';
import type { RequestContext } from '../../../server/context.js';


const names = (containers: readonly { name: string }[] | undefined): string => (containers ?? []).map((c) => c.name).join(' ');

/** Upstream's container choice: the named one (which must exist), or the only one. */
export function chooseContainer(pod: Pod, requested: string): string {
  const name = pod.metadata?.name ?? '';
  const containers = pod.spec?.containers ?? [];
  if (requested === '') {
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    let message = `a container name must be specified for pod ${name}, choose one of: [${names(containers)}]`;
    if ((pod.spec?.initContainers ?? []).length > 0) message += ` or one of the init containers: [${names(pod.spec?.initContainers)}]`;
    throw badRequest(message);
  }
  const all = [...containers, ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])];
  if (!all.some((c) => c.name === requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** Go's conversion of a query value to bool: absent false, "false" and "0" false, anything else true. */
const flag = (query: URLSearchParams, name: string): boolean => {
  const value = query.get(name);
  return value !== null && value.toLowerCase() !== 'false' && value !== '0';
};

function integer(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^-?\d+$/.test(value)) throw badRequest(`invalid value "${value}" for ${name}: must be an integer`);
  return Number(value);
}

async function podOf(t: Target): Promise<Pod> {
  return (await t.store.get(t.namespace, t.name)) as unknown as Pod;
}

const kubeletPath = (parts: readonly string[], params: URLSearchParams): string => {
  const path = `/${parts.map(encodeURIComponent).join('/')}`;
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
};

/** GET pods/NAME/log: PodLogOptions validated as upstream, then the kubelet's /containerLogs streamed back. */
function logHandler(config: KubeletClientConfig): VerbHandler {
  return async (ctx: RequestContext, t: Target) => {
    const q = ctx.query;
    const tailLines = integer(q, 'tailLines');
    const limitBytes = integer(q, 'limitBytes');
    const sinceSeconds = integer(q, 'sinceSeconds');
    const sinceTime = q.get('sinceTime');
    if (sinceTime !== null && Number.isNaN(Date.parse(sinceTime))) throw badRequest(`invalid value "${sinceTime}" for sinceTime: must be an RFC3339 time`);
    const errors: FieldError[] = [];
    if (tailLines !== undefined && tailLines < 0) errors.push(invalidField('tailLines', tailLines, 'must be greater than or equal to 0'));
    if (limitBytes !== undefined && limitBytes < 1) errors.push(invalidField('limitBytes', limitBytes, 'must be greater than 0'));
    if (sinceSeconds !== undefined && sinceTime !== null) errors.push(forbiddenField('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
    else if (sinceSeconds !== undefined && sinceSeconds < 1) errors.push(invalidField('sinceSeconds', sinceSeconds, 'must be greater than 0'));
    if (errors.length > 0) throw invalid({ group: '', kind: 'PodLogOptions' }, t.name, errors);
    const pod = await podOf(t);
    const container = chooseContainer(pod, q.get('container') ?? '');
    const nodeName = pod.spec?.nodeName ?? '';
    const res = ctx.res;
    if (nodeName === '') {
      // Not scheduled yet: no logs (upstream answers with an empty body).
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end();
      return;
    }
    const location = await kubeletLocation(t.lookup, nodeName);
    const params = new URLSearchParams();
    if (flag(q, 'follow')) params.set('follow', 'true');
    if (flag(q, 'previous')) params.set('previous', 'true');
    if (flag(q, 'timestamps')) params.set('timestamps', 'true');
    if (sinceSeconds !== undefined) params.set('sinceSeconds', String(sinceSeconds));
    if (sinceTime !== null) params.set('sinceTime', sinceTime);
    if (tailLines !== undefined) params.set('tailLines', String(tailLines));
    if (limitBytes !== undefined) params.set('limitBytes', String(limitBytes));
    const aborted = new AbortController();
    const upstream = await kubeletGet(config, location, kubeletPath(['containerLogs', t.namespace, t.name, container], params), aborted.signal);
    const code = upstream.statusCode ?? 500;
    if (code < 200 || code > 206) throw await kubeletError(upstream);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.once('close', () => aborted.abort());
    upstream.on('error', () => undefined);
    await new Promise<void>((resolve) => {
      upstream.on('data', (chunk: Buffer) => (res as NodeJS.WritableStream).write(chunk));
      upstream.once('end', resolve);
      upstream.once('close', resolve);
    });
    res.end();
  };
}

/** pods/exec and pods/attach: PodExecOptions/PodAttachOptions become the kubelet's input/output/error/tty/command parameters. */
function remoteCommandHandler(config: KubeletClientConfig, kind: 'exec' | 'attach'): VerbHandler {
  return async (ctx: RequestContext, t: Target) => {
    const q = ctx.query;
    const pod = await podOf(t);
    const container = chooseContainer(pod, q.get('container') ?? '');
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName === '') throw badRequest(`pod ${t.name} does not have a host assigned`);
    const location = await kubeletLocation(t.lookup, nodeName);
    const params = new URLSearchParams();
    if (flag(q, 'stdin')) params.set('input', '1');
    if (flag(q, 'stdout')) params.set('output', '1');
    if (flag(q, 'stderr')) params.set('error', '1');
    if (flag(q, 'tty')) params.set('tty', '1');
    if (kind === 'exec') for (const c of q.getAll('command')) params.append('command', c);
    await proxyUpgrade(ctx, config, location, kubeletPath([kind, t.namespace, t.name, container], params));
  };
}

/** pods/portforward: the `ports` become the kubelet's `port` parameters. */
function portForwardHandler(config: KubeletClientConfig): VerbHandler {
  return async (ctx: RequestContext, t: Target) => {
    const pod = await podOf(t);
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName === '') throw badRequest(`pod ${t.name} does not have a host assigned`);
    const location = await kubeletLocation(t.lookup, nodeName);
    const params = new URLSearchParams();
    for (const value of ctx.query.getAll('ports')) for (const p of value.split(',')) if (p !== '') params.append('port', p);
    await proxyUpgrade(ctx, config, location, kubeletPath(['portForward', t.namespace, t.name], params));
  };
}

/** The pod subresources served by the kubelet, for the pod definition's subresourceHandlers. */
export function podStreamingHandlers(config: KubeletClientConfig): Record<string, Record<string, VerbHandler>> {
  const exec = remoteCommandHandler(config, 'exec');
  const attach = remoteCommandHandler(config, 'attach');
  const portforward = portForwardHandler(config);
  return {
    log: { get: logHandler(config) },
    exec: { get: exec, create: exec },
    attach: { get: attach, create: attach },
    portforward: { get: portforward, create: portforward },
  };
}
