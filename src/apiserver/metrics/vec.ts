/**
 * Metric vectors for hot paths: one series per label set, looked up once and
 * then updated with plain arithmetic.
 *
 * prom-client's Counter and Histogram validate and hash the label object on
 * every `inc`/`observe` (a counter and a histogram of nine labels cost about
 * 2.5 µs a request on the development machine). Here a caller asks for a series once (`vec.series('GET', …)`),
 * keeps it (see request-metrics.ts) and updates numbers; the labels are only
 * formatted when /metrics is scraped. The vectors expose the same `get()` as
 * prom-client's metrics, so they register in, and are rendered by, a
 * prom-client Registry next to its own metrics (process_*, nodejs_*).
 *
 *   const requests = new CounterVec({ name: 'x_total', help: '…', labelNames: ['verb'] }).registerIn(registry);
 *   const list = requests.series('LIST');   // once
 *   list.inc();                             // per request: one addition
 */
import type { Metric, Registry } from 'prom-client';

export type Labels = Readonly<Record<string, string>>;

export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface VecOptions {
  /** The metric's name, byte for byte upstream's. */
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * One line of a scrape, in the shape prom-client's registry renders (its
 * typings do not export it): histogram buckets carry `{le}` as labels and the
 * series' labels as sharedLabels, which the registry formats once per object.
 */
export interface Row {
  readonly labels: Labels;
  readonly sharedLabels?: Labels;
  readonly value: number;
  readonly metricName?: string;
}

export interface MetricSnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: MetricKind;
  readonly aggregator: 'sum';
  readonly values: Row[];
}

abstract class MetricVec<S extends { readonly labels: Labels }> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** How prom-client's cluster mode would merge workers; unused here but part of its metric shape. */
  readonly aggregator = 'sum' as const;
  abstract readonly type: MetricKind;
  private readonly bySeriesKey = new Map<string, S>();

  constructor(options: VecOptions) {
    if (!METRIC_NAME.test(options.name)) throw new Error(`invalid metric name "${options.name}"`);
    for (const label of options.labelNames) {
      if (!LABEL_NAME.test(label) || label === 'le') throw new Error(`invalid label name "${label}" of metric "${options.name}"`);
    }
    this.name = options.name;
    this.help = options.help;
    this.labelNames = [...options.labelNames];
  }

  /**
   * The series of these label values (in labelNames order), created on first
   * use. It joins the values into a key: keep the series on hot paths.
   */
  series(...values: string[]): S {
    if (values.length !== this.labelNames.length) {
      throw new Error(`metric "${this.name}" has ${this.labelNames.length} labels, got ${values.length} values`);
    }
    const key = values.join('\u0000');
    let series = this.bySeriesKey.get(key);
    if (series === undefined) {
      const labels: Record<string, string> = {};
      for (let i = 0; i < values.length; i++) labels[this.labelNames[i]!] = values[i]!;
      series = this.newSeries(Object.freeze(labels));
      this.bySeriesKey.set(key, series);
    }
    return series;
  }

  /** Forget the series of these label values (a caller holding it keeps a detached series). */
  remove(...values: string[]): void {
    this.bySeriesKey.delete(values.join('\u0000'));
  }

  /** Zero every series; series held by callers stay valid. */
  reset(): void {
    for (const s of this.bySeriesKey.values()) this.zero(s);
  }

  /** Register in a prom-client registry, which renders it with its own metrics. */
  registerIn(registry: Registry): this {
    // prom-client's registry only needs name, help, type, aggregator, get() and reset().
    registry.registerMetric(this as unknown as Metric);
    return this;
  }

  /** prom-client's metric shape, read by Registry.metrics(). */
  async get(): Promise<MetricSnapshot> {
    const values: Row[] = [];
    for (const s of this.bySeriesKey.values()) this.rows(s, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  protected abstract newSeries(labels: Labels): S;
  protected abstract zero(series: S): void;
  protected abstract rows(series: S, into: Row[]): void;
}

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    if (by > 0) this.value += by;
  }
}

export class CounterVec extends MetricVec<CounterSeries> {
  readonly type = 'counter';

  protected newSeries(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  protected zero(series: CounterSeries): void {
    series.value = 0;
  }

  protected rows(series: CounterSeries, into: Row[]): void {
    into.push({ labels: series.labels, value: series.value });
  }
}

export class GaugeSeries {
  value = 0;
  constructor(readonly labels: Labels) {}

  set(value: number): void {
    this.value = value;
  }

  inc(by = 1): void {
    this.value += by;
  }

  dec(by = 1): void {
    this.value -= by;
  }
}

export class GaugeVec extends MetricVec<GaugeSeries> {
  readonly type = 'gauge';

  protected newSeries(labels: Labels): GaugeSeries {
    return new GaugeSeries(labels);
  }

  protected zero(series: GaugeSeries): void {
    series.value = 0;
  }

  protected rows(series: GaugeSeries, into: Row[]): void {
    into.push({ labels: series.labels, value: series.value });
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

export interface HistogramVecOptions extends VecOptions {
  /** Upper bounds, increasing; +Inf is implicit. */
  readonly buckets: readonly number[];
}

export class HistogramVec extends MetricVec<HistogramSeries> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  /** One `{le}` object per bucket, shared by every series' rows. */
  private readonly le: readonly Labels[];

  constructor(options: HistogramVecOptions) {
    super(options);
    for (let i = 1; i < options.buckets.length; i++) {
      if (!(options.buckets[i]! > options.buckets[i - 1]!)) throw new Error(`buckets of metric "${options.name}" must increase`);
    }
    this.buckets = Object.freeze([...options.buckets]);
    this.le = Object.freeze([...this.buckets.map((b) => Object.freeze({ le: String(b) })), Object.freeze({ le: '+Inf' })]);
  }

  protected newSeries(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }

  protected zero(series: HistogramSeries): void {
    series.counts.fill(0);
    series.sum = 0;
    series.count = 0;
  }

  protected rows(series: HistogramSeries, into: Row[]): void {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    for (let i = 0; i < series.counts.length; i++) {
      cumulative += series.counts[i]!;
      into.push({ labels: this.le[i]!, sharedLabels: series.labels, value: cumulative, metricName: bucket });
    }
    into.push({ labels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
    into.push({ labels: series.labels, value: series.count, metricName: `${this.name}_count` });
  }
}
