#!/usr/bin/env node
// Runs every compiled *.test.js under dist/src and dist/test with node's test
// runner (Node 20's --test does not expand globs, so we collect the files here).
// Extra arguments filter the files by substring: `node scripts/run-tests.mjs storage/`.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const roots = ['dist/src', 'dist/test'];
const filters = process.argv.slice(2);

function collect(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const files = roots
  .flatMap((root) => collect(root, []))
  .filter((f) => filters.length === 0 || filters.some((s) => relative('.', f).includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files found: did the build run?');
  process.exit(1);
}
const child = spawn(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
