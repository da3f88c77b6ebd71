/**
 * The hashes upstream names revisions with: 32-bit FNV-1 (ControllerRevision
 * data, history.HashControllerRevision) and FNV-1a (a DaemonSet's template,
 * controller.ComputeHash), written as the decimal value passed through
 * rand.SafeEncodeString, which maps each digit onto consonants and digits so
 * that no hash spells a word.
 */
const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const bytesOf = (part: string | Uint8Array): Uint8Array => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part);

/** FNV-1 (multiply, then xor) over the bytes of the parts (strings as UTF-8), in order. */
export function fnv32(...parts: readonly (string | Uint8Array)[]): number {
  let hash = FNV32_OFFSET;
  for (const part of parts) {
    for (const byte of bytesOf(part)) hash = (Math.imul(hash, FNV32_PRIME) ^ byte) >>> 0;
  }
  return hash >>> 0;
}

/** FNV-1a (xor, then multiply) over the bytes of the parts (strings as UTF-8), in order. */
export function fnv32a(...parts: readonly (string | Uint8Array)[]): number {
  let hash = FNV32_OFFSET;
  for (const part of parts) {
    for (const byte of bytesOf(part)) hash = Math.imul(hash ^ byte, FNV32_PRIME) >>> 0;
  }
  return hash >>> 0;
}

/** Upstream's rand.SafeEncodeString: each character replaced by SAFE_ALPHABET[charCode % 27]. */
export function safeEncodeString(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += SAFE_ALPHABET[text.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/** The decimal form of a hash, safe-encoded: what revision names and hash labels carry. */
export function encodeHash(hash: number): string {
  return safeEncodeString(String(hash >>> 0));
}
