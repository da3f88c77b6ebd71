// A node:test reporter that prints, once the run is over, how long each test
// file took (the wall time of its process, as the runner measured it), slowest
// first: the numbers to watch against the suite's 15-minute budget (DESIGN §5a).
// A unit file run in a batch (run-tests.mjs) is timed inside its batch's process, without the process's start.
// scripts/run-tests.mjs uses it beside the spec reporter.
import { relative } from 'node:path';

const SHOWN = 25;

export default async function* fileDurations(source) {
  const files = new Map();
  for await (const event of source) {
    if (event.type !== 'test:complete') continue;
    const { name, file, nesting, details } = event.data;
    if (file === undefined) continue;
    const record = (path) => files.set(path, { ms: details?.duration_ms ?? 0, failed: details?.passed === false });
    if (nesting !== 0) continue;
    // The runner reports each file as a top-level test named by its path; a batch of unit files
    // (run-tests.mjs) reports a top-level suite per file too, named by the file's path.
    const batch = file.includes('.test-batches');
    if (name === file && (!batch || details?.passed === false)) record(relative('.', file));
    else if (name !== file && batch && name.endsWith('.test.js')) record(name);
  }
  if (files.size === 0) return;
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((sum, [, r]) => sum + r.ms, 0);
  yield `\nslowest test files (seconds; ${rows.length} files, ${(total / 1000).toFixed(1)} s in all):\n`;
  for (const [path, r] of rows.slice(0, SHOWN)) yield `${(r.ms / 1000).toFixed(1).padStart(7)}  ${path}${r.failed ? '  (failed)' : ''}\n`;
}
