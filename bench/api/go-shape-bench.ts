/**
 * The cost of giving a written object Go's JSON shape (go-json-shape.ts), which
 * every create, update and patch pays, against JSON.parse + JSON.stringify of
 * the same realistic pod (sample-objects.ts), in this process.
 *
 * `measureGoShape()` returns flat figures:
 *   go_shape_pod_per_s, go_shape_json_roundtrip_per_s (parse of its text + stringify),
 *   go_shape_ratio (shape cost / JSON round-trip cost).
 * Run alone: node dist/bench/api/go-shape-bench.js [seconds per measure]
 */
import { fileURLToPath } from 'node:url';
import { goJsonShape } from '../../src/api/protobuf/go-json-shape.js';
import { sampleObjects } from '../../src/api/protobuf/testing/sample-objects.js';
import { printTable, round } from '../common/stats.js';
import { opsPerSecond } from '../common/ops-per-second.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };

export function measureGoShape(options: { msPerMeasure?: number } = {}): Record<string, number> {
  const ms = options.msPerMeasure ?? 1000;
  const pod = sampleObjects()['v1/Pod']!;
  const text = JSON.stringify(pod);
  let sink = 0;
  const shape = opsPerSecond(() => (sink += Object.keys(goJsonShape(pod, POD)).length), ms);
  const json = opsPerSecond(() => (sink += JSON.stringify(JSON.parse(text) as object).length), ms);
  if (sink === 0) throw new Error('nothing measured');
  return {
    go_shape_pod_per_s: round(shape, 0),
    go_shape_json_roundtrip_per_s: round(json, 0),
    go_shape_ratio: round(json / shape, 3),
  };
}

export function printGoShapeTable(r: Record<string, number>): void {
  printTable(
    ['pod, per second', 'Go shape', 'JSON.parse + JSON.stringify', 'cost ratio'],
    [['operations', r.go_shape_pod_per_s!, r.go_shape_json_roundtrip_per_s!, r.go_shape_ratio!]],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seconds = Number(process.argv[2] ?? 1);
  printGoShapeTable(measureGoShape({ msPerMeasure: seconds * 1000 }));
}
