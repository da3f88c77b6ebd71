/**
 * `$(VAR)` references in env values, commands and subPathExpr, as upstream's
 * forked expansion package (third_party/forked/golang/expansion) reads them:
 * `$(NAME)` is replaced by the mapping's value; `$$` is an escaped `$`; a
 * reference the mapping does not know stays as written (`$(NAME)`); an
 * unclosed `$(` and a `$` before any other character are copied unchanged.
 *
 * @example
 *   expand('$(HOST):$(PORT) costs $$5', lookupIn(new Map([['HOST', 'db']])))
 *   // 'db:$(PORT) costs $5'
 */

/** A variable's value, or undefined when it is not defined. */
export type Lookup = (name: string) => string | undefined;

/** A lookup over maps, first match wins (upstream's MappingFuncFor). */
export function lookupIn(...maps: readonly ReadonlyMap<string, string>[]): Lookup {
  return (name) => {
    for (const map of maps) {
      const value = map.get(name);
      if (value !== undefined) return value;
    }
    return undefined;
  };
}

export function expand(input: string, lookup: Lookup): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    if (next === '$') {
      out += '$';
      cursor += 1;
    } else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close === -1) {
        out += '$(';
        cursor += 1;
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        cursor = close;
      }
    } else {
      out += `$${next ?? ''}`;
      cursor += 1;
    }
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
