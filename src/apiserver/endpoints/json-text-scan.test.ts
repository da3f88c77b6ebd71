import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanJsonText, type JsonTextFacts } from './json-text-scan.js';

describe('scanJsonText', () => {
  it('counts every key written, duplicates included, and not strings that are values', () => {
    assert.equal(scanJsonText('{"a":1,"a":2,"b":["x","y:"],"c":{"d" : "e"}}').keys, 5);
    assert.equal(scanJsonText('["a","b"]').keys, 0);
    assert.equal(scanJsonText('{"q\\"uote\\\\":"v\\":"}').keys, 1);
  });

  it('says whether every number is a plain integer a double holds exactly', () => {
    assert.equal(scanJsonText('{"a":-12,"b":[0,123456789012345],"s":"1.5e3"}').plainIntegers, true);
    for (const text of ['{"a":1.0}', '[1e3]', '[1E3]', '[-0.5]', '[1234567890123456]']) assert.equal(scanJsonText(text).plainIntegers, false, text);
  });

  it('measures the deepest nesting', () => {
    assert.equal(scanJsonText('1').depth, 0);
    assert.equal(scanJsonText('{"a":[{"b":[]}],"c":{}}').depth, 4);
    assert.equal(scanJsonText(`${'['.repeat(2000)}${']'.repeat(2000)}`).depth, 2000);
  });

  it('finds the end of strings with escaped quotes and backslash runs, and of strings that are not ASCII', () => {
    assert.deepEqual(scanJsonText('{"a\\\\":"\\"","b":"\\\\\\"x","c\\\\\\\\":1}'), { keys: 3, plainIntegers: true, depth: 1 });
    assert.deepEqual(scanJsonText('{"ä\\"ö":{"名前":"値 1.5"},"x":[1.5]}'), { keys: 3, plainIntegers: false, depth: 2 });
  });

  it('answers as a character-by-character scan does, over varied documents', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ['a', '"', '\\', ':', '{', '}', '[', ']', ' ', 'é', '1', '.', 'e', '-', '名'];
    const randomString = (): string => Array.from({ length: random(3) === 0 ? random(40) : random(6) }, () => pieces[random(pieces.length)]!).join('');
    const randomValue = (depth: number): unknown => {
      switch (depth > 4 ? random(4) : random(7)) {
        case 0:
          return randomString();
        case 1:
          return [1, -12, 0.5, 1e21, 1234567890123456, 3][random(6)];
        case 2:
          return random(2) === 0;
        case 3:
          return null;
        case 4:
          return Array.from({ length: random(4) }, () => randomValue(depth + 1));
        default: {
          const o: Record<string, unknown> = {};
          for (let k = random(5); k > 0; k--) o[randomString()] = randomValue(depth + 1);
          return o;
        }
      }
    };
    for (let round = 0; round < 2000; round++) {
      let text = JSON.stringify(randomValue(0), null, random(3) === 0 ? 1 : undefined);
      // A duplicated key, as a client may write one.
      if (text.startsWith('{"') && random(2) === 0) text = `{"dup":1,"dup" :2,${text.slice(1)}`;
      assert.deepEqual(scanJsonText(text), scanByCharacter(text), text);
    }
  });
});

/** The scan as it was first written, one character at a time: the reference the faster scan is held to. */
function scanByCharacter(text: string): JsonTextFacts {
  const n = text.length;
  let keys = 0;
  let depth = 0;
  let maxDepth = 0;
  let plainIntegers = true;
  const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      let j = i + 1;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 0x3a) keys++;
      i = j - 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = c === 0x2d ? i + 1 : i;
      const start = j;
      while (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
      const next = text.charCodeAt(j);
      if (next === 0x2e || next === 0x65 || next === 0x45 || j - start > 15) plainIntegers = false;
      i = j - 1;
    }
  }
  return { keys, plainIntegers, depth: maxDepth };
}
