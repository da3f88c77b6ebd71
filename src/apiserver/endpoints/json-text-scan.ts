/**
 * One cheap pass over a JSON text that JSON.parse has already accepted, to
 * learn what JSON.parse's value cannot tell: how many object keys the text
 * writes (more than the value holds means a key was duplicated), whether every
 * number is a plain integer that a double holds exactly (so the value's
 * numbers say what the text said: no `1.0`, `1e3` or 17-digit literals), and
 * how deeply it nests. The typed decoder's fast path (field-validation.ts)
 * relies on it to decode from JSON.parse's value instead of a node tree.
 */

export interface JsonTextFacts {
  /** Object keys written in the text, duplicates included. */
  readonly keys: number;
  /** Every number literal is `-?digits` with at most 15 digits. */
  readonly plainIntegers: boolean;
  /** The deepest nesting of objects and arrays. */
  readonly depth: number;
}

const MAX_EXACT_DIGITS = 15;

/** The facts of `text`, which must be valid JSON (JSON.parse accepted it). */
export function scanJsonText(text: string): JsonTextFacts {
  const n = text.length;
  let keys = 0;
  let depth = 0;
  let maxDepth = 0;
  let plainIntegers = true;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, then see whether a colon makes it a key.
      let j = stringEnd(text, i) + 1;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 0x3a /* : */) keys++;
      i = j;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = c === 0x2d ? i + 1 : i;
      const start = j;
      while (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
      const next = text.charCodeAt(j);
      if (next === 0x2e /* . */ || next === 0x65 /* e */ || next === 0x45 /* E */ || j - start > MAX_EXACT_DIGITS) plainIntegers = false;
      i = j;
      continue;
    }
    i++;
  }
  return { keys, plainIntegers, depth: maxDepth };
}

/**
 * The index of the quote that closes the string opened at `open` (or the
 * text's end when none does). indexOf finds the quotes: as fast as a loop of
 * charCodeAt over a short string, far faster over a long one (a ConfigMap's
 * data, kubectl's last-applied annotation). A quote after an odd run of
 * backslashes is escaped.
 */
function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote >= 0) {
    let b = quote - 1;
    while (text.charCodeAt(b) === 0x5c /* \ */) b--;
    if ((quote - b) % 2 === 1) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
