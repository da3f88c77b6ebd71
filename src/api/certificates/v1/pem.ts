/**
 * PEM blocks as Go's encoding/pem reads them: `pem.Decode` finds the next
 * `-----BEGIN TYPE-----` … `-----END TYPE-----` block anywhere in the data
 * (text before it is skipped), with optional `Key: value` headers before the
 * base64 body. CSR validation needs exactly this much: the type, whether there
 * were headers, the DER bytes, and what follows the block.
 */

export interface PemBlock {
  readonly type: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Buffer;
}

const BEGIN = /-----BEGIN ([^\r\n-]*)-----\r?\n/;
const BASE64_LINE = /^[A-Za-z0-9+/=]*$/;

/** The first well-formed block of `data` and the text after it, or undefined when there is none (as pem.Decode's nil block). */
export function decodePem(data: string): { block: PemBlock; rest: string } | undefined {
  let text = data;
  for (;;) {
    const begin = BEGIN.exec(text);
    if (begin === null) return undefined;
    const type = begin[1]!;
    const bodyStart = begin.index + begin[0].length;
    const endMarker = `-----END ${type}-----`;
    const end = text.indexOf(endMarker, bodyStart);
    const parsed = end < 0 ? undefined : parseBody(text.slice(bodyStart, end));
    if (parsed !== undefined) {
      let after = end + endMarker.length;
      if (text.startsWith('\r\n', after)) after += 2;
      else if (text.startsWith('\n', after)) after += 1;
      return { block: { type, headers: parsed.headers, bytes: parsed.bytes }, rest: text.slice(after) };
    }
    // Malformed: as Go, look for another block after this BEGIN line.
    text = text.slice(bodyStart);
  }
}

function parseBody(body: string): { headers: Record<string, string>; bytes: Buffer } | undefined {
  const lines = body.split(/\r?\n/);
  const headers: Record<string, string> = {};
  let i = 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon < 0) break;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  // A blank line ends the headers.
  if (Object.keys(headers).length > 0 && lines[i] === '') i++;
  const base64 = lines.slice(i).map((l) => l.trim());
  if (!base64.every((l) => BASE64_LINE.test(l))) return undefined;
  const joined = base64.join('');
  if (joined.length % 4 !== 0) return undefined;
  return { headers, bytes: Buffer.from(joined, 'base64') };
}

/** One PEM block (64-column base64), for tests and writers. */
export function encodePem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}${lines.length > 0 ? '\n' : ''}-----END ${type}-----\n`;
}
