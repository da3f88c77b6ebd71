/**
 * Just enough DER to check a PKCS#10 signature: the raw bytes of the signed
 * part (certificationRequestInfo), the signature algorithm's OID and the
 * signature bits. Anything not shaped so is malformed.
 */

interface Tlv {
  readonly tag: number;
  /** The whole element, header included. */
  readonly raw: Buffer;
  readonly content: Buffer;
}

function readTlv(buf: Buffer, offset: number): Tlv {
  if (offset + 2 > buf.length) throw new Error('truncated');
  const tag = buf[offset]!;
  let length = buf[offset + 1]!;
  let header = 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || offset + 2 + n > buf.length) throw new Error('bad length');
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buf[offset + 2 + i]!;
    header += n;
  }
  const end = offset + header + length;
  if (end > buf.length) throw new Error('truncated');
  return { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + header, end) };
}

function children(content: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let offset = 0; offset < content.length; ) {
    const tlv = readTlv(content, offset);
    out.push(tlv);
    offset += tlv.raw.length;
  }
  return out;
}

function oidText(content: Buffer): string {
  if (content.length === 0) throw new Error('empty OID');
  const first = content[0]!;
  const parts = [Math.min(2, Math.floor(first / 40)), first - Math.min(2, Math.floor(first / 40)) * 40];
  let value = 0;
  for (const byte of content.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

export interface SignedParts {
  readonly tbs: Buffer;
  readonly algorithm: string;
  readonly signature: Buffer;
}

/** The signed parts of a certificate request; throws on anything malformed. */
export function signedParts(der: Buffer): SignedParts {
  const outer = readTlv(der, 0);
  if (outer.tag !== 0x30 || outer.raw.length !== der.length) throw new Error('not a SEQUENCE');
  const [info, algorithm, signature] = children(outer.content);
  if (info?.tag !== 0x30 || algorithm?.tag !== 0x30 || signature?.tag !== 0x03) throw new Error('not a certificate request');
  const oid = children(algorithm.content)[0];
  if (oid?.tag !== 0x06) throw new Error('no algorithm');
  if (signature.content.length < 1) throw new Error('empty signature');
  return { tbs: info.raw, algorithm: oidText(oid.content), signature: signature.content.subarray(1) };
}
