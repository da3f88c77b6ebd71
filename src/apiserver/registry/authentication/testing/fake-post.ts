/** A POST request context with a JSON body, and the response it gets, for handler unit tests. */
import { Readable } from 'node:stream';
import type { RequestContext, UserInfo } from '../../../server/context.js';
import { parseRequestInfo } from '../../../server/request-info.js';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export function fakePost(path: string, body: unknown, user?: UserInfo): { ctx: RequestContext; answer: () => Answer } {
  const u = new URL(path, 'https://apiserver');
  const text = JSON.stringify(body);
  const req = Object.assign(Readable.from([Buffer.from(text)]), { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(text.length) } });
  let status = 0;
  let sent = '';
  const res = {
    headersSent: false,
    writeHead(code: number) {
      status = code;
      this.headersSent = true;
      return this;
    },
    setHeader() {},
    end(b?: string | Buffer) {
      sent = b === undefined ? '' : b.toString();
    },
  };
  const ctx = {
    req,
    res,
    path: u.pathname,
    query: u.searchParams,
    info: parseRequestInfo('POST', u.pathname, u.searchParams),
    user,
    start: process.hrtime.bigint(),
    warnings: [],
  } as unknown as RequestContext;
  return { ctx, answer: () => ({ status, body: JSON.parse(sent) as Record<string, unknown> }) };
}
