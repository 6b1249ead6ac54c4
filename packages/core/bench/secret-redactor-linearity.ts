// The redactor's cost on adversarial texts at 1 Mi and 2 Mi characters (CPU time, best of 5): each
// ratio should be about 2. Run: pnpm exec node --conditions=@toolwire/source bench/secret-redactor-linearity.ts
import { createSecretRedactor } from '../src/provider/secret-redactor.ts';

const KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const uni = 'pässwörd-Geheimnis-ÄÖÜ';
const r = createSecretRedactor([KEY, 'x-gateway-secret-77', uni, 'aB3%45cD\\/9e&#47;F0']);
const inputs: Record<string, (n: number) => string> = {
  near: (n) => `${KEY.slice(0, 9)}#`.repeat(n / 10),
  b64run: (n) => Buffer.from(`u:${KEY.slice(0, 30)}`.repeat(n / 40)).toString('base64').slice(0, n),
  backslashes: (n) => '\\'.repeat(n),
  nested: (n) => ('\\'.repeat(50) + '"').repeat(n / 51),
  pct25: (n) => ('%' + '25'.repeat(100) + 'zz').repeat(n / 203),
  pctUtf8: (n) => '%E3%80%E3'.repeat(n / 9),
  pctUtf8nest: (n) => ('%C3%25' + '25'.repeat(50) + 'A4').repeat(n / 108),
  amp: (n) => '&#x2F;&#47;&#'.repeat(n / 13),
  uniNear: (n) => `${uni.slice(0, 12)}!`.repeat(n / 13),
  cjk: (n) => '漢字テキスト'.repeat(n / 6),
};
/** The best CPU time of 5 redactions of `text`, in ms. */
function best(text: string): number {
  let least = Infinity;
  for (let i = 0; i < 5; i++) {
    const start = process.cpuUsage();
    r(text);
    const used = process.cpuUsage(start);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

for (const [name, make] of Object.entries(inputs)) {
  const small = make(1 << 20);
  const large = make(1 << 21);
  const [a, b] = [best(small), best(large)];
  console.log(`${name.padEnd(12)} 1 Mi ${a.toFixed(1)} ms, 2 Mi ${b.toFixed(1)} ms, ratio ${(b / a).toFixed(2)}, ${((a * 1e6) / small.length).toFixed(1)} ns/char`);
}
