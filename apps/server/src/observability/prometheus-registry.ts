/** Label values of one series, in the order of the metric's `labels`. */
export type LabelValues = readonly string[];

/** A monotonically increasing count per label set. */
export interface Counter {
  inc(labels: LabelValues, by?: number): void;
}

/** Observations sorted into cumulative buckets, per label set. */
export interface Histogram {
  observe(labels: LabelValues, value: number): void;
}

interface MetricBase {
  name: string;
  help: string;
  labels: readonly string[];
}

interface CounterMetric extends MetricBase {
  type: 'counter';
  series: Map<string, { labels: LabelValues; value: number }>;
}

interface HistogramMetric extends MetricBase {
  type: 'histogram';
  buckets: readonly number[];
  series: Map<string, { labels: LabelValues; counts: number[]; sum: number; count: number }>;
}

interface GaugeMetric extends MetricBase {
  type: 'gauge';
  /** Read at scrape time. */
  collect: () => readonly { labels: LabelValues; value: number }[];
}

type Metric = CounterMetric | HistogramMetric | GaugeMetric;

/** Label values are escaped as the text format asks: backslash, quote, newline. */
function escapeLabel(value: string): string {
  let out = '';
  for (const char of value) {
    if (char === '\\') out += '\\\\';
    else if (char === '"') out += '\\"';
    else if (char === '\n') out += '\\n';
    else out += char;
  }
  return out;
}

function labelText(names: readonly string[], values: LabelValues, extra?: string): string {
  const parts = names.map((name, i) => `${name}="${escapeLabel(values[i] ?? '')}"`);
  if (extra !== undefined) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function formatNumber(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/**
 * A small Prometheus registry: counters, histograms and scrape-time gauges, rendered in
 * the text exposition format (0.0.4). Label values must come from bounded sets (routes,
 * status codes, configured tool names), never from what a client sends.
 */
export class PrometheusRegistry {
  readonly #metrics: Metric[] = [];

  counter(name: string, help: string, labels: readonly string[] = []): Counter {
    const metric: CounterMetric = { type: 'counter', name, help, labels, series: new Map() };
    this.#metrics.push(metric);
    return {
      inc(values, by = 1) {
        // A counter only goes up, by a number: whatever a provider reported (a count sent as a
        // string, NaN) must not turn the series into text or NaN for the life of the process.
        if (typeof by !== 'number' || !Number.isFinite(by) || by < 0) return;
        const key = values.join('\u0000');
        const series = metric.series.get(key);
        if (series === undefined) metric.series.set(key, { labels: [...values], value: by });
        else series.value += by;
      },
    };
  }

  histogram(name: string, help: string, buckets: readonly number[], labels: readonly string[] = []): Histogram {
    const metric: HistogramMetric = { type: 'histogram', name, help, labels, buckets, series: new Map() };
    this.#metrics.push(metric);
    return {
      observe(values, value) {
        const key = values.join('\u0000');
        let series = metric.series.get(key);
        if (series === undefined) {
          series = { labels: [...values], counts: buckets.map(() => 0), sum: 0, count: 0 };
          metric.series.set(key, series);
        }
        series.sum += value;
        series.count++;
        // Counts are per bucket here and made cumulative when rendered.
        for (let i = 0; i < buckets.length; i++) {
          if (value <= (buckets[i] ?? 0)) {
            series.counts[i] = (series.counts[i] ?? 0) + 1;
            break;
          }
        }
      },
    };
  }

  gauge(name: string, help: string, collect: GaugeMetric['collect'], labels: readonly string[] = []): void {
    this.#metrics.push({ type: 'gauge', name, help, labels, collect });
  }

  /** The exposition text, `Content-Type: text/plain; version=0.0.4`. */
  render(): string {
    const lines: string[] = [];
    for (const metric of this.#metrics) {
      lines.push(`# HELP ${metric.name} ${metric.help}`, `# TYPE ${metric.name} ${metric.type}`);
      switch (metric.type) {
        case 'counter':
          for (const series of metric.series.values()) lines.push(`${metric.name}${labelText(metric.labels, series.labels)} ${formatNumber(series.value)}`);
          break;
        case 'gauge':
          for (const series of metric.collect()) lines.push(`${metric.name}${labelText(metric.labels, series.labels)} ${formatNumber(series.value)}`);
          break;
        case 'histogram':
          for (const series of metric.series.values()) {
            let cumulative = 0;
            for (const [i, bound] of metric.buckets.entries()) {
              cumulative += series.counts[i] ?? 0;
              lines.push(`${metric.name}_bucket${labelText(metric.labels, series.labels, `le="${formatNumber(bound)}"`)} ${cumulative}`);
            }
            lines.push(`${metric.name}_bucket${labelText(metric.labels, series.labels, 'le="+Inf"')} ${series.count}`);
            lines.push(`${metric.name}_sum${labelText(metric.labels, series.labels)} ${formatNumber(series.sum)}`);
            lines.push(`${metric.name}_count${labelText(metric.labels, series.labels)} ${series.count}`);
          }
          break;
        default: {
          const unexpected: never = metric;
          throw new Error(`Unknown metric ${JSON.stringify(unexpected)}`);
        }
      }
    }
    return `${lines.join('\n')}\n`;
  }
}
