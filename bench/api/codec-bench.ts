/**
 * Protobuf against JSON: encoding and decoding one realistic pod (spec with
 * volumes, probes, resources, affinity; status with conditions and container
 * statuses; managedFields), in this process, each for a fixed time.
 *
 * Both sides produce or consume bytes, as the API server does: JSON encode is
 * JSON.stringify then UTF-8, JSON decode is UTF-8 then JSON.parse; protobuf
 * encode and decode include the `k8s\0` envelope.
 *
 * `measureCodec()` returns flat figures for bench/results/api.json:
 *   codec_pod_json_bytes, codec_pod_protobuf_bytes,
 *   codec_json_encode_per_s, codec_protobuf_encode_per_s, codec_encode_ratio (protobuf / JSON),
 *   codec_json_decode_per_s, codec_protobuf_decode_per_s, codec_decode_ratio (protobuf / JSON).
 * Run alone: node dist/bench/api/codec-bench.js [seconds per measure]
 */
import { fileURLToPath } from 'node:url';
import { decodeObject, encodeObject } from '../../src/api/protobuf/envelope.js';
import { sampleObjects } from '../../src/api/protobuf/testing/sample-objects.js';
import { printTable, round } from '../common/stats.js';
import { opsPerSecond } from '../common/ops-per-second.js';

export function measureCodec(options: { msPerMeasure?: number } = {}): Record<string, number> {
  const ms = options.msPerMeasure ?? 1000;
  const pod = sampleObjects()['v1/Pod']!;
  const jsonBytes = Buffer.from(JSON.stringify(pod));
  const protobufBytes = encodeObject(pod);
  // Sanity: both decode to objects with the pod's name.
  if ((decodeObject(protobufBytes).metadata as { name: string }).name !== 'web-0') throw new Error('the protobuf pod does not decode');
  let sink = 0;
  const jsonEncode = opsPerSecond(() => (sink += Buffer.from(JSON.stringify(pod)).length), ms);
  const protobufEncode = opsPerSecond(() => (sink += encodeObject(pod).length), ms);
  const jsonDecode = opsPerSecond(() => (sink += Object.keys(JSON.parse(jsonBytes.toString('utf8')) as object).length), ms);
  const protobufDecode = opsPerSecond(() => (sink += Object.keys(decodeObject(protobufBytes)).length), ms);
  if (sink === 0) throw new Error('nothing measured');
  return {
    codec_pod_json_bytes: jsonBytes.length,
    codec_pod_protobuf_bytes: protobufBytes.length,
    codec_json_encode_per_s: round(jsonEncode, 0),
    codec_protobuf_encode_per_s: round(protobufEncode, 0),
    codec_encode_ratio: round(protobufEncode / jsonEncode, 3),
    codec_json_decode_per_s: round(jsonDecode, 0),
    codec_protobuf_decode_per_s: round(protobufDecode, 0),
    codec_decode_ratio: round(protobufDecode / jsonDecode, 3),
  };
}

/** The table bench:api prints for these figures. */
export function printCodecTable(r: Record<string, number>): void {
  printTable(
    ['pod codec', 'JSON', 'protobuf', 'ratio'],
    [
      ['bytes', r.codec_pod_json_bytes!, r.codec_pod_protobuf_bytes!, r.codec_pod_protobuf_bytes! / r.codec_pod_json_bytes!],
      ['encodes/s', r.codec_json_encode_per_s!, r.codec_protobuf_encode_per_s!, r.codec_encode_ratio!],
      ['decodes/s', r.codec_json_decode_per_s!, r.codec_protobuf_decode_per_s!, r.codec_decode_ratio!],
    ],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seconds = Number(process.argv[2] ?? 1);
  printCodecTable(measureCodec({ msPerMeasure: seconds * 1000 }));
}
