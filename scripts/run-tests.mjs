#!/usr/bin/env node
// Runs every compiled *.test.js under dist/src and dist/test with node's test
// runner (Node 20's --test does not expand globs, so we collect the files here).
// Extra arguments filter the files by substring: `node scripts/run-tests.mjs storage/`.
//
// The end-to-end files (dist/test/e2e) are started first: they are the long
// ones, and a long file started last would run alone at the end while the
// other slot idles. K8TS_TEST_CONCURRENCY sets how many files run at once
// (default 2). A table of the slowest files closes the run.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const roots = ['dist/src', 'dist/test'];
const filters = process.argv.slice(2);
const concurrency = Number(process.env.K8TS_TEST_CONCURRENCY ?? 2);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`K8TS_TEST_CONCURRENCY must be a positive integer, not "${process.env.K8TS_TEST_CONCURRENCY}"`);
  process.exit(1);
}

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

const isEndToEnd = (path) => relative('.', path).startsWith(join('dist', 'test', 'e2e'));
const files = roots
  .flatMap((root) => collect(root, []))
  .filter((f) => filters.length === 0 || filters.some((s) => relative('.', f).includes(s)))
  .sort((a, b) => Number(isEndToEnd(b)) - Number(isEndToEnd(a)) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error('no test files found: did the build run?');
  process.exit(1);
}
const durations = fileURLToPath(new URL('./file-durations-reporter.mjs', import.meta.url));
const child = spawn(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${durations}`,
    '--test-reporter-destination=stdout',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=300000',
    ...files,
  ],
  { stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
