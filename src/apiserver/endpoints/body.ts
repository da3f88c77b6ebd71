/**
 * Reading request bodies: at most 3 MiB (upstream's limit; 413 beyond it), then
 * decoded from JSON, YAML or (for options bodies) Kubernetes protobuf into an
 * object. Malformed input is a 400 that says what is wrong; it never reaches storage.
 */
import { asGoYamlTags } from './go-yaml-tags.js';
import { firstYamlDocument } from './first-yaml-document.js';
import { ProtobufError } from '../../api/protobuf/codec.js';
import { decodeObject, PROTOBUF_MEDIA_TYPE } from '../../api/protobuf/envelope.js';
import { badRequest, requestEntityTooLarge } from '../../machinery/status.js';
import type { HttpRequest } from '../server/context.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: HttpRequest, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw requestEntityTooLarge(limit);
  }
  return collectBody(req, limit);
}

/**
 * The body's chunks, read with plain stream events (an async iterator over
 * the request costs a few allocations per request more). A request that
 * closes before its end fails as the iterator fails (premature close).
 */
function collectBody(req: HttpRequest, limit: number): Promise<Buffer> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(prematureClose());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    const onClose = (): void => {
      cleanup();
      reject(prematureClose());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** Decode a JSON or YAML document into a plain value; 400 with the parser's reason when malformed. */
export function decodeDocument(body: Buffer, encoding: 'json' | 'yaml'): unknown {
  const text = body.toString('utf8');
  if (encoding === 'json') return decodeJsonText(text);
  if (text.trim() === '') throw badRequest('the request body is empty');
  try {
    // YAML 1.1, as Go's YAML decoder reads Kubernetes manifests; only the first document counts.
    const doc = firstYamlDocument(text, { version: '1.1', merge: true, customTags: asGoYamlTags });
    const first = doc.errors[0];
    if (first !== undefined) throw first;
    return doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (e: unknown) {
    throw badRequest(`error decoding the request body as YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
}

/** Decode a JSON document's text; 400 with the parser's reason when malformed. */
export function decodeJsonText(text: string): unknown {
  if (isBlank(text)) throw badRequest('the request body is empty');
  try {
    return JSON.parse(text) as unknown;
  } catch (e: unknown) {
    throw badRequest(`error decoding the request body as JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Whether the text is empty or white space only (as text.trim() === '', without copying the text). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!WHITE_SPACE.test(text[i]!)) return false;
  return true;
}

const WHITE_SPACE = /\s/;

/**
 * Decode an options body (DeleteOptions) in the encoding its Content-Type
 * names: protobuf-speaking clients (client-go typed clients) send it as
 * protobuf, others as JSON or YAML.
 */
export function decodeOptionsDocument(body: Buffer, contentType: string | undefined): unknown {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime === PROTOBUF_MEDIA_TYPE) {
    try {
      return decodeObject(body);
    } catch (e: unknown) {
      if (e instanceof ProtobufError) throw badRequest(`error decoding the request body as protobuf: ${e.message}`);
      throw e;
    }
  }
  return decodeDocument(body, mime.includes('yaml') ? 'yaml' : 'json');
}
