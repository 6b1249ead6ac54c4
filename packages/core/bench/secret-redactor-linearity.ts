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
for (const [name, make] of Object.entries(inputs)) {
  const a = make(1 << 20), b = make(1 << 21);
  const time = (t: string) => { let best = Infinity; for (let i = 0; i < 5; i++) { const s = process.cpuUsage(); r(t); const u = process.cpuUsage(s); best = Math.min(best, (u.user + u.system) / 1000); } return best; };
  const ta = time(a), tb = time(b);
  console.log(name.padEnd(12), `1 Mi ${ta.toFixed(1)} ms, 2 Mi ${tb.toFixed(1)} ms, ratio ${(tb / ta).toFixed(2)}, ${(ta * 1e6 / a.length).toFixed(1)} ns/char`);
}
