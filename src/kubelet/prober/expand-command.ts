/**
 * `$(VAR)` references in an exec probe's command, expanded as upstream's
 * ExpandContainerCommandOnlyStatic does: only from the container's own `env`
 * list (a `valueFrom` variable expands to ''), `$$` is a literal `$`, and an
 * unknown or unterminated reference stays as written. Probes do not see
 * values resolved from ConfigMaps, Secrets or the downward API.
 */
import type { EnvVar } from 'kubernetes-types/core/v1.js';

/** Expands one string with `lookup` (undefined: leave the reference as written). */
export function expandReferences(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c !== '$' || i + 1 >= input.length) {
      out += c;
      i++;
      continue;
    }
    const next = input[i + 1]!;
    if (next === '$') {
      out += '$';
      i += 2;
    } else if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close < 0) {
        out += '$(';
        i += 2;
      } else {
        const name = input.slice(i + 2, close);
        out += lookup(name) ?? `$(${name})`;
        i = close + 1;
      }
    } else {
      out += `$${next}`;
      i += 2;
    }
  }
  return out;
}

export function expandCommand(command: readonly string[], env: readonly EnvVar[] | undefined): string[] {
  const values = new Map<string, string>();
  for (const e of env ?? []) values.set(e.name, e.value ?? '');
  return command.map((arg) => expandReferences(arg, (name) => values.get(name)));
}
