import { describe, expect, it } from 'vitest';
import { createSecretRedactor, redactSecretText } from './secret-redactor.ts';

const KEY = 'sk-test+Ab/9xYz=Q7mWp2Lk4Rt8Vn3Hc6Jd';
const HEX = '4f9a0c2e7b1d8e3f6a5c9b0d2e4f7a1c';

describe('redactSecretText', () => {
  it('redacts the exact spelling, every time it occurs', () => {
    expect(redactSecretText(`a ${KEY} b ${KEY}`, [KEY])).toBe('a [redacted] b [redacted]');
  });

  it('redacts it percent-encoded, upper or lower case hex, once or twice, as in a query string', () => {
    const encoded = encodeURIComponent(KEY);
    expect(encoded).toContain('%2B');
    expect(redactSecretText(`GET /v1/models?api-key=${encoded}&x=1`, [KEY])).toBe('GET /v1/models?api-key=[redacted]&x=1');
    expect(redactSecretText(`key=${encoded.replaceAll('%2B', '%2b').replaceAll('%2F', '%2f')}`, [KEY])).toBe('key=[redacted]');
    expect(redactSecretText(`key=${encodeURIComponent(encoded)}`, [KEY])).toBe('key=[redacted]');
  });

  it('redacts it escaped in a JSON string, at any depth, and as HTML character references', () => {
    const json = JSON.stringify({ message: `bad key ${KEY}` }).replaceAll('/', '\\/');
    expect(redactSecretText(json, [KEY])).toBe('{"message":"bad key [redacted]"}');
    const unicode = KEY.replaceAll('/', '\\u002F').replaceAll('+', '\\u002b');
    expect(redactSecretText(`"${unicode}"`, [KEY])).toBe('"[redacted]"');
    const twice = JSON.stringify(JSON.stringify({ key: KEY.replaceAll('/', '\\/') }));
    expect(redactSecretText(twice, [KEY])).not.toContain('9xYz');
    expect(redactSecretText(`<p>${KEY.replaceAll('/', '&#x2F;').replaceAll('+', '&#43;')}</p>`, [KEY])).toBe('<p>[redacted]</p>');
  });

  it('redacts it inside a base64 Basic credential (user:key), whatever its alignment, and the whole value', () => {
    for (const user of ['', 'u', 'us', 'user', 'admin@example.com']) {
      const basic = Buffer.from(`${user}:${KEY}`).toString('base64');
      expect(redactSecretText(`Authorization: Basic ${basic} was refused`, [KEY])).toBe('Authorization: Basic [redacted] was refused');
      const url = Buffer.from(`${user}:${KEY}`).toString('base64url');
      expect(redactSecretText(`token=${url};`, [KEY])).toBe('token=[redacted];');
    }
  });

  it('redacts a hex key in the other case', () => {
    expect(redactSecretText(`key ${HEX.toUpperCase()} is invalid`, [HEX])).toBe('key [redacted] is invalid');
  });

  it('redacts a cut key (a long prefix or suffix), and leaves the 4 + 4 characters servers show to name it', () => {
    expect(redactSecretText(`Incorrect API key provided: ${KEY.slice(0, 14)}...`, [KEY])).toBe('Incorrect API key provided: [redacted]...');
    expect(redactSecretText(`key …${KEY.slice(-12)}`, [KEY])).toBe('key …[redacted]');
    const named = `Incorrect API key provided: ${KEY.slice(0, 7)}***${KEY.slice(-4)}.`;
    expect(redactSecretText(named, [KEY])).toBe(named);
    // Percent-encoded and cut.
    expect(redactSecretText(`?key=${encodeURIComponent(KEY).slice(0, 19)}`, [KEY])).toBe('?key=[redacted]');
  });

  it('redacts a secret under 20 characters only whole (in any spelling): its pieces are often words', () => {
    const short = 'sk-upstream';
    expect(redactSecretText('The upstream sent more than 1 MiB: raise limits.upstreamMessageLimitBytes.', [short, KEY])).toBe(
      'The upstream sent more than 1 MiB: raise limits.upstreamMessageLimitBytes.',
    );
    expect(redactSecretText(`key ${short} and ?k=${encodeURIComponent('pass/word+1')} and ${KEY}`, [short, 'pass/word+1', KEY])).toBe('key [redacted] and ?k=[redacted] and [redacted]');
  });

  it('joins what two secrets cover into one redaction', () => {
    const other = `${KEY.slice(20)}-tail-0123456789`;
    expect(redactSecretText(`x ${KEY.slice(0, 20)}${other} y`, [KEY, other])).toBe('x [redacted] y');
  });

  it('leaves text without the secret, and short or missing secrets, alone', () => {
    const text = 'Incorrect API key provided. See https://platform.openai.com/account/api-keys \\/ %2F &#47; \\\\';
    expect(redactSecretText(text, [KEY, HEX, undefined, 'short'])).toBe(text);
    expect(redactSecretText('short abc', ['abc'])).toBe('short abc');
    expect(createSecretRedactor([])('any text')).toBe('any text');
  });

  it('keeps escapes that escape nothing as they are, and still finds the key after them', () => {
    expect(redactSecretText(`C:\\\\dir\\${KEY} %zz &#; &#x; \\q`, [KEY])).toBe('C:\\\\dir\\[redacted] %zz &#; &#x; \\q');
  });

  it('redacts a secret beyond ASCII percent-encoded as UTF-8 (once or twice), escaped, and in the other case', () => {
    const secret = 'pässwörd-Geheimnis';
    expect(redactSecretText(`?pw=${encodeURIComponent(secret)}&x=1`, [secret])).toBe('?pw=[redacted]&x=1');
    expect(redactSecretText(`?pw=${encodeURIComponent(encodeURIComponent(secret))}`, [secret])).toBe('?pw=[redacted]');
    expect(redactSecretText(JSON.stringify(secret).replace('ö', '\\u00f6'), [secret])).toBe('"[redacted]"');
    expect(redactSecretText(`PW ${secret.toUpperCase()}!`, [secret])).toBe('PW [redacted]!');
    // A lone or broken UTF-8 byte reads as itself.
    expect(redactSecretText('%C3 %E3%80 %C3%25', [secret])).toBe('%C3 %E3%80 %C3%25');
  });

  it('redacts a secret that holds what reads as an escape (%45, \\/, &#47;), as it is and encoded', () => {
    for (const secret of ['aB3%45cD9eF0', 'aB3cD\\/9e&#47;F0']) {
      expect(redactSecretText(`key ${secret} bad`, [secret])).toBe('key [redacted] bad');
      expect(redactSecretText(JSON.stringify({ key: secret }), [secret])).toBe('{"key":"[redacted]"}');
      expect(redactSecretText(`?key=${encodeURIComponent(secret)}&x`, [secret])).toBe('?key=[redacted]&x');
    }
    const long = 'Zq8\\/xY7&#47;wV6uT5sR4%2Fabcdefgh';
    expect(redactSecretText(`key ${long} bad`, [long])).toBe('key [redacted] bad');
  });

  it('redacts short secrets that overlap, whatever their lengths, and not their pieces', () => {
    const secrets = ['abcdefgh', 'bcdefghi', 'zabcdefghi'];
    expect(redactSecretText('1 zabcdefghi 2 abcdefghi 3 bcdefgh 4 abcdefg', secrets)).toBe('1 [redacted] 2 [redacted] 3 bcdefgh 4 abcdefg');
  });

  it('serves thousands of secrets, short and long, finding each', () => {
    const short = Array.from({ length: 2000 }, (_, i) => `pw-${i.toString(36).padStart(4, '0')}-xyz`);
    const long = Array.from({ length: 200 }, (_, i) => `sk-long-${i.toString(36).padStart(3, '0')}-abcdefghijklmnopqrstuvwxyz`);
    const redact = createSecretRedactor([...short, ...long]);
    expect(redact(`a ${short[1234] ?? ''} b ${encodeURIComponent(long[150] ?? '')} c pw-zzzz-xyz d`)).toBe('a [redacted] b [redacted] c pw-zzzz-xyz d');
  });

  it('stays linear on long texts full of near matches and broken escapes', () => {
    const redact = createSecretRedactor([KEY, HEX]);
    const near = `${KEY.slice(0, 9)}#`.repeat(100_000) + '\\'.repeat(200_000) + '%25'.repeat(100_000) + '&#'.repeat(100_000) + '%E3%80%E3'.repeat(50_000) + `%C3${'%25'.repeat(100)}`.repeat(1000) + ` ${KEY}`;
    const out = redact(near);
    expect(out.endsWith('[redacted]')).toBe(true);
    expect(out.length).toBe(near.length - KEY.length + '[redacted]'.length);
    expect(out.endsWith(' [redacted]')).toBe(true);
    // A long base64 run with many matches inside it.
    const basic = Buffer.from(`u:${KEY}`.repeat(20_000)).toString('base64');
    expect(redact(`Basic ${basic}`)).toBe('Basic [redacted]');
  });
});

describe('a redactor with maxChars', () => {
  const redact = createSecretRedactor([KEY, HEX, 'pass/word+1']);
  const note = /… \((\d+) more characters\)$/;

  it('keeps the start, redacted as in the whole text, and says how much was left out', () => {
    const text = `key ${KEY} then ${'x'.repeat(100)}`;
    expect(redact(`${text} and more`, 50)).toBe(`key [redacted] then … (${text.length + 9 - 46} more characters)`);
    expect(redact(`${text}. And more`, text.length + 2)).toBe(`key [redacted] then ${'x'.repeat(100)}. … (8 more characters)`);
    expect(redact(text, text.length)).toBe(redact(text));
    expect(redact('short', 2)).toBe('sh… (3 more characters)');
    expect(createSecretRedactor([])('plain text', 5)).toBe('plain… (5 more characters)');
  });

  it('redacts a secret across the cut whole, in any spelling, and ends after it', () => {
    for (const spelled of [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1).replaceAll('/', '\\u002F'), 'pass%2Fword%2B1', Buffer.from(`me:${KEY}`).toString('base64')]) {
      const text = `${'a'.repeat(40)} ${spelled} ${'b'.repeat(40)}`;
      for (const maxChars of [42, 45, 50, 41 + spelled.length - 1]) {
        const out = redact(text, maxChars);
        // Across the cut: redacted and the text ends there; or, a base64 run whose match lies past the cut, left out whole.
        expect([`${'a'.repeat(40)} [redacted]… (`, `${'a'.repeat(40)} … (`].some((start) => out.startsWith(start)), `${spelled} at ${maxChars}: ${out}`).toBe(true);
      }
    }
  });

  it('gives a start of what the whole text gives, for every cut of texts full of spellings', () => {
    const pieces = [KEY, KEY.slice(0, 12), KEY.slice(-11), encodeURIComponent(KEY), `%25${encodeURIComponent(KEY).slice(3)}`, '\\\\\\/', '&#x2F;', 'pass/word+1', 'PASS%2fWORD%2b1', HEX.toUpperCase(), Buffer.from(`u:${KEY}`).toString('base64'), ' ', '\n', 'abc', '==', 'é😀'];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      let text = '';
      for (let i = 0, n = 2 + random(12); i < n; i++) text += pieces[random(pieces.length)] ?? '';
      const whole = redact(text);
      for (let maxChars = 0; maxChars <= text.length; maxChars += 1 + random(5)) {
        const out = redact(text, maxChars);
        const match = note.exec(out);
        const kept = match === null ? out : out.slice(0, match.index);
        expect(whole.startsWith(kept), `${JSON.stringify(text)} at ${maxChars}: ${JSON.stringify(out)}`).toBe(true);
        if (match === null) expect(out).toBe(whole);
        else expect(Number(match[1])).toBeGreaterThan(0);
      }
    }
  });

  it('leaves out a short token across the cut whole, and cuts a long one a base64 group early', () => {
    expect(redact(`400 ${'m'.repeat(100)} tail`, 50)).toBe(`400 … (${100 + 5} more characters)`);
    expect(redact(`400 ${'m'.repeat(100_000)}`, 60_000)).toBe(`400 ${'m'.repeat(60_000 - 4 - 4)}… (${100_000 - (60_000 - 8)} more characters)`);
  });

  it('cuts before a secret spelled with escapes nested deeper than it reads past the cut', () => {
    const deep = KEY.split('').map((c) => `${'\\'.repeat(6000)}${c === '/' ? '/' : `u00${c.charCodeAt(0).toString(16)}`}`).join('');
    const text = `head ${deep} tail`;
    const out = redact(text, 10);
    expect(out).toMatch(/^head (\[redacted\])?… \(\d+ more characters\)$/);
    expect(redact(text)).toBe('head [redacted] tail');
  });
});
