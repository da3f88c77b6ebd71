/**
 * Comparing kubectl's output with the lines upstream prints. An expected line
 * is exact, except for placeholders standing for what changes from run to run:
 *
 *   <AGE>  an age column (`0s`, `12s`, `3m4s`), with the padding after it
 *   <ANY>  any text without a line break
 */
import assert from 'node:assert/strict';

const AGE = '(?:\\d+[smhdy])+';

export function linePattern(expected: string): RegExp {
  let source = '';
  const parts = expected.split(/(<AGE> *|<ANY>)/);
  for (const part of parts) {
    if (part.startsWith('<AGE>')) {
      // An age followed by padding keeps the columns after it aligned on the header, give or take its width.
      source += part.length > '<AGE>'.length ? `${AGE} +` : AGE;
    } else if (part === '<ANY>') {
      source += '.*';
    } else {
      source += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/** The output's lines (a final newline ends the last line; it does not start an empty one). */
export function outputLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Every line as expected, in order, and no other line. */
export function assertLines(actual: string, expected: readonly string[], message?: string): void {
  const lines = outputLines(actual);
  const ok = lines.length === expected.length && lines.every((line, i) => linePattern(expected[i]!).test(line));
  if (!ok) {
    assert.fail(`${message ?? 'kubectl output'} differs.\nexpected:\n${expected.join('\n')}\nactual:\n${actual}`);
  }
}

/** Volatile metadata replaced by placeholders, so that a whole YAML or JSON document compares exactly. */
export function maskVolatile(text: string): string {
  return text
    .replace(/(creationTimestamp|deletionTimestamp)(":?|:) "[^"]*"/g, '$1$2 "<TIME>"')
    .replace(/(resourceVersion)(":?|:) "\d+"/g, '$1$2 "<RV>"')
    .replace(/(uid)(":?|:) "?[0-9a-f-]{36}"?/g, (_m, key: string, sep: string) => `${key}${sep} ${sep.startsWith('"') ? '"<UID>"' : '<UID>'}`);
}
