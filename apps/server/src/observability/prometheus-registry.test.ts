import { describe, expect, it } from 'vitest';
import { PrometheusRegistry } from './prometheus-registry.ts';

describe('PrometheusRegistry', () => {
  it('renders counters, cumulative histogram buckets and scrape-time gauges in the text format', () => {
    const registry = new PrometheusRegistry();
    const requests = registry.counter('t_requests_total', 'Requests.', ['route']);
    const latency = registry.histogram('t_latency_seconds', 'Latency.', [0.1, 1]);
    let open = 3;
    registry.gauge('t_open', 'Open now.', () => [{ labels: [], value: open }]);
    requests.inc(['/a']);
    requests.inc(['/a'], 2);
    requests.inc(['/b']);
    for (const value of [0.05, 0.5, 0.5, 5]) latency.observe([], value);
    open = 1;
    expect(registry.render()).toBe(
      [
        '# HELP t_requests_total Requests.',
        '# TYPE t_requests_total counter',
        't_requests_total{route="/a"} 3',
        't_requests_total{route="/b"} 1',
        '# HELP t_latency_seconds Latency.',
        '# TYPE t_latency_seconds histogram',
        't_latency_seconds_bucket{le="0.1"} 1',
        't_latency_seconds_bucket{le="1"} 3',
        't_latency_seconds_bucket{le="+Inf"} 4',
        't_latency_seconds_sum 6.05',
        't_latency_seconds_count 4',
        '# HELP t_open Open now.',
        '# TYPE t_open gauge',
        't_open 1',
        '',
      ].join('\n'),
    );
  });

  it('leaves a counter as it was when asked to add something that is not a count', () => {
    const registry = new PrometheusRegistry();
    const tokens = registry.counter('t_tokens_total', 'Tokens.', ['type']);
    tokens.inc(['input'], 5);
    for (const bad of ['12', Number.NaN, Number.POSITIVE_INFINITY, -3, [5]] as unknown[]) tokens.inc(['input'], bad as number);
    tokens.inc(['input'], 12);
    expect(registry.render()).toContain('t_tokens_total{type="input"} 17\n');
  });

  it('escapes backslashes, quotes and newlines in label values', () => {
    const registry = new PrometheusRegistry();
    registry.counter('t_total', 'T.', ['tool']).inc(['a"b\\c\nd']);
    expect(registry.render()).toContain('t_total{tool="a\\"b\\\\c\\nd"} 1');
  });
});
