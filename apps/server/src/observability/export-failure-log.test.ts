import { describe, expect, it } from 'vitest';
import { createExportFailureLog, reportExports } from './export-failure-log.ts';
import type { ExportOutcome, OtelLog } from './export-failure-log.ts';

function recordingLog(): OtelLog & { lines: { level: string; fields: Record<string, unknown>; message: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
    info: (fields, message) => lines.push({ level: 'info', fields, message }),
  };
}

const failed = (error: Error): ExportOutcome => ({ code: 1, error });

describe('createExportFailureLog', () => {
  it('logs the first failure, then at most one line per interval with the count, then the recovery', () => {
    const log = recordingLog();
    let now = 0;
    const report = createExportFailureLog(log, { everyMs: 60_000, now: () => now });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), { code: 'ECONNREFUSED' });
    report('traces', failed(refused));
    for (let i = 0; i < 1_000; i++) {
      now += 50;
      report('traces', failed(refused));
    }
    now += 20_000;
    report('traces', failed(refused));
    report('traces', { code: 0 });
    report('traces', { code: 0 });
    expect(log.lines.map((line) => [line.level, line.message.split(';')[0]])).toEqual([
      ['warn', 'OpenTelemetry: exporting traces failed'],
      ['warn', 'OpenTelemetry: exporting traces still fails'],
      ['info', 'OpenTelemetry: exporting traces works again'],
    ]);
    expect(log.lines[0]?.fields).toEqual({ signal: 'traces', err: { name: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:4318', code: 'ECONNREFUSED' } });
    expect(log.lines[1]?.fields).toMatchObject({ failedExports: 1_001 });
    expect(log.lines[2]?.fields).toEqual({ signal: 'traces', failedExports: 1_002 });
  });

  it('keeps the signals apart and logs nothing while exports succeed', () => {
    const log = recordingLog();
    const report = createExportFailureLog(log);
    report('metrics', { code: 0 });
    report('traces', failed(new Error('Request timed out')));
    report('metrics', failed(new Error('Service Unavailable')));
    expect(log.lines.map((line) => line.fields.signal)).toEqual(['traces', 'metrics']);
  });

  it("never logs a collector's response body, and bounds the message", () => {
    const log = recordingLog();
    const error = Object.assign(new Error('x'.repeat(10_000)), { code: 400, data: 'body the collector sent back' });
    createExportFailureLog(log)('traces', failed(error));
    const fields = JSON.stringify(log.lines[0]?.fields);
    expect(fields).not.toContain('body the collector');
    expect(fields.length).toBeLessThan(400);
  });
});

describe('reportExports', () => {
  it("reports each export's outcome and still hands it to the caller", () => {
    const outcomes: ExportOutcome[] = [];
    const exporter = {
      export(items: number[], done: (outcome: ExportOutcome) => void) {
        done(items.length > 0 ? { code: 0 } : { code: 1, error: new Error('Nothing to send') });
      },
    };
    reportExports(exporter, (outcome) => outcomes.push(outcome));
    const seen: number[] = [];
    exporter.export([1], (outcome) => seen.push(outcome.code));
    exporter.export([], (outcome) => seen.push(outcome.code));
    expect(seen).toEqual([0, 1]);
    expect(outcomes.map((o) => o.code)).toEqual([0, 1]);
  });
});
