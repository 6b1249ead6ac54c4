// Same-process A/B of redactErrorSecrets: this tree's code against a copy of another's
// (`OLD_DIR`, holding its secret-redactor.ts and redact-error-secrets.ts), interleaved rounds,
// CPU time. Run: OLD_DIR=/path pnpm exec node --conditions=@toolwire/source bench/redact-error-secrets.ab.ts [old-first]
import { pathToFileURL } from 'node:url';
import * as nowSecret from '../src/provider/secret-redactor.ts';
import * as nowError from '../src/provider/redact-error-secrets.ts';

type Redact = <E>(error: E, secrets: readonly string[]) => E;
type Text = (text: string, secrets: readonly string[]) => string;

const oldDir = process.env['OLD_DIR'];
if (oldDir === undefined) throw new Error('OLD_DIR: a folder with the old secret-redactor.ts and redact-error-secrets.ts');
const oldFirst = process.argv.includes('old-first');
const load = async (dir: string, name: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(`${dir}/${name}`).href)) as Record<string, unknown>;
const oldError = oldFirst ? await load(oldDir, 'redact-error-secrets.ts') : undefined;
const oldSecret = oldFirst ? await load(oldDir, 'secret-redactor.ts') : undefined;
const variants = {
  old: {
    error: (oldError ?? (await load(oldDir, 'redact-error-secrets.ts')))['redactErrorSecrets'] as Redact,
    text: (oldSecret ?? (await load(oldDir, 'secret-redactor.ts')))['redactSecretText'] as Text,
  },
  new: { error: nowError.redactErrorSecrets as Redact, text: nowSecret.redactSecretText as Text },
};

const KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const secrets = [KEY, 'x-gateway-secret-77'];

/** Hostile text: near matches of the key in every spelling, base64-looking runs, escapes. */
function hostile(chars: number): string {
  const unit = `${KEY.slice(0, 9)}# ${encodeURIComponent(KEY.slice(0, 9))}%2 \\u0073k-pro &#115;k-proj- ${Buffer.from(KEY.slice(0, 12)).toString('base64')}+ `;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

/** An SDK-like APIError: status message with the JSON body, the parsed body, a cause. */
function apiError(chars: number): Error {
  const text = hostile(chars);
  const body = { error: { message: text, type: 'invalid_request_error', code: 'bad' } };
  const error = new Error(`400 ${JSON.stringify(body)}`, { cause: new Error(text) }) as Error & { error: unknown; status: number };
  error.error = body.error;
  error.status = 400;
  return error;
}

/** Each case: made outside the timed part (an error, its stack formatted as a logger would), then run. */
type Case = () => (v: (typeof variants)['new']) => void;
const errorCase =
  (chars: number): Case =>
  () => {
    const error = apiError(chars);
    // Formatted and flat up front, as the SDK and a logger leave them.
    if (Number.isNaN(error.message.charCodeAt(9)) || error.stack?.charCodeAt(9) === undefined || (error.cause as Error).stack?.charCodeAt(9) === undefined) throw new Error('no stack');
    return (v) => v.error(error, secrets);
  };
const cases: Record<string, Case> = {};
for (const mib of [4, 16]) {
  const chars = mib * 1024 * 1024;
  cases[`error ${mib} MiB`] = errorCase(chars);
  const text = hostile(chars);
  cases[`text ${mib} MiB`] = () => (v) => v.text(text, secrets);
}
cases['error 2 KiB'] = errorCase(2048);
/** An ordinary answer: a JSON body of prose, links and a little beyond ASCII, no secret in it. */
const typical = JSON.stringify({
  choices: Array.from({ length: 4000 }, (_, i) => ({ index: i, message: { role: 'assistant', content: `The quick brown fox ${i} jumps over the lazy dog; see https://example.com/a/b?c=${i}&d=%20e. Ünïcödé ok.` } })),
});
cases['text typical'] = () => (v) => v.text(typical, secrets);

const rounds = Number(process.env['ROUNDS'] ?? 9);
const order = oldFirst ? (['old', 'new'] as const) : (['new', 'old'] as const);
for (const [name, make] of Object.entries(cases)) {
  const times: Record<string, number[]> = { old: [], new: [] };
  const repeat = name.includes('KiB') ? 200 : name.includes('typical') ? 5 : 1;
  for (let round = 0; round < rounds; round++) {
    for (const which of order) {
      const runs = Array.from({ length: repeat }, make);
      const start = process.cpuUsage();
      for (const run of runs) run(variants[which]);
      const used = process.cpuUsage(start);
      times[which]?.push((used.user + used.system) / 1000 / repeat);
    }
  }
  const stat = (values: number[]): string => {
    const sorted = [...values].sort((a, b) => a - b);
    return `best ${(sorted[0] ?? 0).toFixed(2)} ms, median ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(2)} ms`;
  };
  console.log(`${name.padEnd(14)} old: ${stat(times['old'] ?? [])} | new: ${stat(times['new'] ?? [])}`);
}
