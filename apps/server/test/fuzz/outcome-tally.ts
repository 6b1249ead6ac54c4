import type { RawAnswer } from './raw-exchange.ts';

/**
 * Counts what the cases got back (status and error code, or the stream's ending), printed
 * by the fuzz script (`TOOLWIRE_FUZZ_RUNS` set) so a run shows whether the mutations reach
 * past the request checks.
 */
export class OutcomeTally {
  readonly #counts = new Map<string, number>();
  readonly #ms = new Map<string, number>();

  /** Counts one answer, which took `ms` milliseconds (`label`: which kind of request it answered). */
  add(answer: RawAnswer, ms: number, label = ''): void {
    let key = `${label}${answer.left ? 'client left, ' : ''}${answer.status}`;
    if (answer.status >= 400) {
      try {
        const payload = JSON.parse(answer.body.toString('utf8')) as { error?: { code?: unknown; message?: unknown } };
        key += ` ${String(payload.error?.code)}`;
        // TOOLWIRE_FUZZ_MESSAGES=1: also the start of each message (digits folded), to read what users would see.
        if (process.env.TOOLWIRE_FUZZ_MESSAGES !== undefined) key += ` ${String(payload.error?.message).replace(/[0-9]+/g, 'N').slice(0, 160)}`;
      } catch {
        key += ' (not JSON)';
      }
    } else if (String(answer.headers['content-type']).startsWith('text/event-stream')) {
      const text = answer.body.toString('utf8');
      const error = /"error":\{[^}]*"code":("[^"]*"|null)/.exec(text) ?? /"type":"error","code":("[^"]*"|null)/.exec(text);
      key += error === null ? ' stream' : ` stream with error ${error[1] ?? ''}`;
    }
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#ms.set(key, (this.#ms.get(key) ?? 0) + ms);
  }

  print(title: string): void {
    if (process.env.TOOLWIRE_FUZZ_RUNS === undefined) return;
    const rows = [...this.#counts].sort((a, b) => b[1] - a[1]).map(([key, n]) => `  ${String(n).padStart(6)}  ${key} (${Math.round((this.#ms.get(key) ?? 0) / n)} ms each)`);
    console.log(`${title}\n${rows.join('\n')}`);
  }
}
