/**
 * The pod-template-hash of a Deployment's template: FNV-32a over the
 * template's canonical JSON (object keys sorted, so the same template always
 * hashes alike), then over collisionCount as four little-endian bytes when
 * set (upstream's ComputeHash feeds the collision count the same way), printed
 * in decimal and encoded with upstream's SafeEncodeString alphabet, which has
 * no vowels and no look-alike characters (so no words, no 0/o or 1/l).
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';

/** upstream's rand.SafeEncodeString alphabet. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV_OFFSET_32 = 0x811c9dc5;
const FNV_PRIME_32 = 0x01000193;

export function fnv32a(bytes: Uint8Array, seed = FNV_OFFSET_32): number {
  let hash = seed >>> 0;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME_32) >>> 0;
  }
  return hash;
}

/** Each character mapped onto the safe alphabet by its code (upstream's SafeEncodeString). */
export function safeEncodeString(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += SAFE_ALPHABET[text.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/** JSON with object keys sorted at every level (undefined members dropped, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function computeTemplateHash(template: PodTemplateSpec, collisionCount?: number): string {
  let hash = fnv32a(new TextEncoder().encode(canonicalJson(template)));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
}
