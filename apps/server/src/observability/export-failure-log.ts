/** Where the OpenTelemetry setup writes its few lines (a pino logger fits). */
export interface OtelLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** An exporter's result as both SDK generations report it (`code` 0 is success). */
export interface ExportOutcome {
  code: number;
  error?: Error;
}

/** What an exporter sends: traces or metrics. */
export type OtelSignal = 'traces' | 'metrics';

/** A short, safe description of an export error: its name, status or code, and a bounded message (never a response body). */
export function describeExportError(error: Error | undefined): Record<string, unknown> {
  if (error === undefined) return {};
  const code = (error as { code?: unknown }).code;
  const described: Record<string, unknown> = { name: error.name, message: error.message.slice(0, 200) };
  if (typeof code === 'number' || typeof code === 'string') described.code = code;
  return described;
}

/**
 * Logs export failures without flooding: the first failure of a signal at once, then at most
 * one line per `everyMs` (default 5 minutes) with the count since, and one line when exports
 * work again. A collector that is down for a day costs a few hundred lines, not one per batch.
 */
export function createExportFailureLog(log: OtelLog, options: { everyMs?: number; now?: () => number } = {}): (signal: OtelSignal, outcome: ExportOutcome) => void {
  const everyMs = options.everyMs ?? 300_000;
  const now = options.now ?? Date.now;
  const state = new Map<OtelSignal, { failed: number; unreported: number; loggedAt: number }>();
  return (signal, outcome) => {
    const current = state.get(signal);
    if (outcome.code === 0) {
      if (current === undefined) return;
      state.delete(signal);
      log.info({ signal, failedExports: current.failed }, `OpenTelemetry: exporting ${signal} works again`);
      return;
    }
    if (current === undefined) {
      state.set(signal, { failed: 1, unreported: 0, loggedAt: now() });
      log.warn(
        { signal, err: describeExportError(outcome.error) },
        `OpenTelemetry: exporting ${signal} failed; requests are not affected, and what cannot be queued is dropped (further failures are logged at most every ${String(Math.round(everyMs / 1000))} s)`,
      );
      return;
    }
    current.failed++;
    current.unreported++;
    if (now() - current.loggedAt < everyMs) return;
    log.warn({ signal, failedExports: current.unreported, err: describeExportError(outcome.error) }, `OpenTelemetry: exporting ${signal} still fails`);
    current.unreported = 0;
    current.loggedAt = now();
  };
}

/** Makes `exporter` report each export's outcome to `report`, leaving the rest of it as it is. */
// `never` items: any exporter fits, whatever it exports, and its items are only passed through.
export function reportExports(exporter: { export(items: never, done: (outcome: ExportOutcome) => void): void }, report: (outcome: ExportOutcome) => void): void {
  const exportItems = exporter.export.bind(exporter);
  exporter.export = (items, done) => {
    exportItems(items, (outcome) => {
      report(outcome);
      done(outcome);
    });
  };
}
