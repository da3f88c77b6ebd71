import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { findSample, findSamples, parseExposition } from './testing/exposition.js';
import { CounterVec, GaugeVec, HistogramVec } from './vec.js';

describe('metric vectors', () => {
  it('render counters and gauges in a prom-client registry, beside its own metrics', async () => {
    const registry = new Registry();
    const counter = new CounterVec({ name: 'things_total', help: 'Things.', labelNames: ['verb', 'code'] }).registerIn(registry);
    const gauge = new GaugeVec({ name: 'open_things', help: 'Open things.', labelNames: ['verb'] }).registerIn(registry);
    new Counter({ name: 'plain_total', help: 'Plain.', registers: [registry] }).inc(2);
    const list = counter.series('LIST', '200');
    list.inc();
    list.inc(2);
    list.inc(-5); // counters never go down
    assert.equal(counter.series('LIST', '200'), list, 'the same series for the same values');
    counter.series('GET', '404').inc();
    const watch = gauge.series('WATCH');
    watch.inc();
    watch.inc();
    watch.dec();

    const text = await registry.metrics();
    assert.match(text, /^# HELP things_total Things\.\n# TYPE things_total counter$/m);
    assert.match(text, /^# TYPE open_things gauge$/m);
    const samples = parseExposition(text);
    assert.equal(findSample(samples, 'things_total', { verb: 'LIST', code: '200' })?.value, 3);
    assert.equal(findSample(samples, 'things_total', { verb: 'GET', code: '404' })?.value, 1);
    assert.equal(findSample(samples, 'open_things', { verb: 'WATCH' })?.value, 1);
    assert.equal(findSample(samples, 'plain_total')?.value, 2);
  });

  it('render histograms with cumulative buckets, +Inf, sum and count', async () => {
    const registry = new Registry();
    const histogram = new HistogramVec({ name: 'latency_seconds', help: 'Latency.', labelNames: ['op'], buckets: [0.1, 1, 10] }).registerIn(registry);
    const get = histogram.series('get');
    for (const v of [0.05, 0.1, 0.5, 2, 100]) get.observe(v);
    const samples = parseExposition(await registry.metrics());
    const buckets = findSamples(samples, 'latency_seconds_bucket', { op: 'get' }).map((s) => [s.labels.le, s.value]);
    assert.deepEqual(buckets, [
      ['0.1', 2],
      ['1', 3],
      ['10', 4],
      ['+Inf', 5],
    ]);
    assert.equal(findSample(samples, 'latency_seconds_sum', { op: 'get' })?.value, 102.65);
    assert.equal(findSample(samples, 'latency_seconds_count', { op: 'get' })?.value, 5);
  });

  it('escape label values', async () => {
    const registry = new Registry();
    const counter = new CounterVec({ name: 'paths_total', help: 'Paths.', labelNames: ['path'] }).registerIn(registry);
    counter.series('/a"b\\c\nd').inc();
    const text = await registry.metrics();
    assert.match(text, /^paths_total\{path="\/a\\"b\\\\c\\nd"\} 1$/m);
    assert.equal(findSample(parseExposition(text), 'paths_total')?.labels.path, '/a"b\\c\nd');
  });

  it('reset keeps the series callers hold; remove forgets one', async () => {
    const registry = new Registry();
    const counter = new CounterVec({ name: 'kept_total', help: 'Kept.', labelNames: ['k'] }).registerIn(registry);
    const histogram = new HistogramVec({ name: 'kept_seconds', help: 'Kept.', labelNames: ['k'], buckets: [1] }).registerIn(registry);
    const a = counter.series('a');
    a.inc(5);
    histogram.series('a').observe(3);
    registry.resetMetrics();
    a.inc();
    let samples = parseExposition(await registry.metrics());
    assert.equal(findSample(samples, 'kept_total', { k: 'a' })?.value, 1);
    assert.equal(findSample(samples, 'kept_seconds_count', { k: 'a' })?.value, 0);
    counter.remove('a');
    samples = parseExposition(await registry.metrics());
    assert.equal(findSample(samples, 'kept_total', { k: 'a' }), undefined);
  });

  it('reject bad names, label counts and buckets', () => {
    assert.throws(() => new CounterVec({ name: 'bad-name', help: 'x', labelNames: [] }), /invalid metric name/);
    assert.throws(() => new CounterVec({ name: 'ok', help: 'x', labelNames: ['le'] }), /invalid label name/);
    assert.throws(() => new HistogramVec({ name: 'ok', help: 'x', labelNames: [], buckets: [1, 1] }), /must increase/);
    const counter = new CounterVec({ name: 'ok_total', help: 'x', labelNames: ['a', 'b'] });
    assert.throws(() => counter.series('only-one'), /has 2 labels, got 1 values/);
  });

  it('a registry refuses a second metric of the same name', () => {
    const registry = new Registry();
    new CounterVec({ name: 'twice_total', help: 'x', labelNames: [] }).registerIn(registry);
    assert.throws(() => new CounterVec({ name: 'twice_total', help: 'x', labelNames: [] }).registerIn(registry), /already been registered/);
  });
});
