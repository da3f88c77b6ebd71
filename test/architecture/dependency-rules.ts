/**
 * The one rule of ../shared/DESIGN.md §1 as code: which top-level folder of
 * src/ may import which. Components never import storage or each other, so
 * everything they do must go through the API server.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import ts from 'typescript';

/** Folder → the other folders of ours it may import ('client/cache' allows only that sub-folder). */
export const ALLOWED_IMPORTS: Readonly<Record<string, readonly string[] | 'anything'>> = {
  machinery: [],
  api: ['machinery'],
  storage: ['machinery'],
  apiserver: ['machinery', 'api', 'storage', 'client/cache'],
  client: ['machinery', 'api'],
  controllers: ['machinery', 'api', 'client'],
  scheduler: ['machinery', 'api', 'client'],
  kubelet: ['machinery', 'api', 'client'],
  proxy: ['machinery', 'api', 'client'],
  dns: ['machinery', 'api', 'client'],
  cmd: 'anything',
};

export interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly reason: string;
}

/** Check one file's imports. `file` and the resolved targets are paths relative to src/. */
export function checkImports(file: string, source: string): Violation[] {
  const from = file.split('/')[0]!;
  const allowed = ALLOWED_IMPORTS[from];
  const violations: Violation[] = [];
  if (allowed === undefined) {
    return [{ file, specifier: '', reason: `src/${from}/ has no rule in the dependency table` }];
  }
  const info = ts.preProcessFile(source, true, true);
  for (const ref of info.importedFiles) {
    const specifier = ref.fileName;
    if (!specifier.startsWith('.')) continue; // a package, not ours
    const target = normalize(join(dirname(file), specifier)).split(sep).join('/');
    if (target.startsWith('..')) {
      violations.push({ file, specifier, reason: 'imports from outside src/' });
      continue;
    }
    const to = target.split('/')[0]!;
    if (to === from || allowed === 'anything') continue;
    const ok = allowed.some((rule) => target === rule || target.startsWith(`${rule}/`));
    if (!ok) violations.push({ file, specifier, reason: `src/${from}/ may not import src/${to}/` });
  }
  return violations;
}

/** Every .ts file under `root`, relative to it, with forward slashes. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

export function checkTree(root: string): Violation[] {
  return sourceFiles(root).flatMap((file) => checkImports(file, readFileSync(join(root, file), 'utf8')));
}
