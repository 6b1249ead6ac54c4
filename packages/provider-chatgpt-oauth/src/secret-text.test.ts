import { describe, expect, it } from 'vitest';

import { boundedSecretFreeText, MAX_ERROR_BODY_BYTES, readBoundedText, redactSecrets } from './secret-text.ts';

const SECRET = 'rt_Zk3pQ8vLm2Xn7Ws1Yt6Uc4Rb9Ae5Df0G';
const JWT = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

/** Every prefix of `secret` of 6 characters or more that appears in `text`. */
function leakedPrefixes(text: string, secret: string): string[] {
  const leaks: string[] = [];
  for (let length = 6; length <= secret.length; length++) if (text.includes(secret.slice(0, length))) leaks.push(secret.slice(0, length));
  return leaks;
}

describe('redactSecrets', () => {
  it('redacts every occurrence of each known secret, and ignores short ones', () => {
    expect(redactSecrets(`a ${SECRET} b ${SECRET}`, [SECRET, 'short', undefined])).toBe('a [redacted] b [redacted]');
    expect(redactSecrets('a short word', ['short'])).toBe('a short word');
  });

  it('redacts JWT-shaped tokens it was not told about', () => {
    for (const text of [JWT, `token=${JWT}&x=1`, `"${JWT}"`, `${JWT}.`, `Bearer ${JWT}, and ${JWT}`, `glued${JWT}`, 'eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.']) {
      const redacted = redactSecrets(text, []);
      expect(redacted).not.toContain('eyJ');
      expect(redacted).toContain('[redacted]');
    }
  });

  it('leaves words that only look a little like tokens', () => {
    for (const text of ['keyJson.value', 'eyJ alone', 'eyJabc.def', 'see eyJ.x.y?', 'a.b.c']) {
      expect(redactSecrets(text, [])).toBe(text);
    }
  });
});

describe('boundedSecretFreeText', () => {
  it('never leaks a prefix of a secret that straddles the cut, wherever it sits', () => {
    const max = 300;
    for (const offset of [0, 1, max - 20, max - 5, max - 1, max, max + 3]) {
      const text = `${'x'.repeat(offset)}${SECRET}${'y'.repeat(500)}`;
      const bounded = boundedSecretFreeText(text, [SECRET], max);
      expect({ offset, leaks: leakedPrefixes(bounded, SECRET) }).toEqual({ offset, leaks: [] });
      expect(bounded.length).toBeLessThanOrEqual(max + 1);
    }
  });

  it('does the same for an unknown JWT straddling the cut', () => {
    const text = `${'x'.repeat(290)}${JWT}`;
    expect(boundedSecretFreeText(text, [], 300)).not.toContain('eyJ');
  });
});

describe('readBoundedText', () => {
  // Found by fuzzing: a body reset mid-read failed the whole call with `TypeError: terminated`.
  it('gives what came before a body broke off, as truncated', async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new TypeError('terminated'));
        else controller.enqueue(new TextEncoder().encode('{"error":null}'));
        sent = true;
      },
    });
    expect(await readBoundedText(new Response(body))).toEqual({ text: '{"error":null}', truncated: true });
  });

  it('still throws when the read was aborted', async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new DOMException('This operation was aborted', 'AbortError'));
      },
    });
    await expect(readBoundedText(new Response(body))).rejects.toThrow('aborted');
  });

  it('reads at most the limit of an 8 MB body and cancels the rest', async () => {
    let pulled = 0;
    let cancelled = false;
    const chunk = new Uint8Array(64 * 1024).fill(120);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        if (pulled > 8 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const { text, truncated } = await readBoundedText(new Response(body));
    expect(truncated).toBe(true);
    expect(text.length).toBe(MAX_ERROR_BODY_BYTES);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(1024 * 1024);
  });

  it('reads a short body whole, and a multi-byte character cut at the limit does not throw', async () => {
    expect(await readBoundedText(new Response('{"ok":true}'))).toEqual({ text: '{"ok":true}', truncated: false });
    const { text, truncated } = await readBoundedText(new Response('é'.repeat(10)), 5);
    expect(truncated).toBe(true);
    expect(text.startsWith('éé')).toBe(true);
  });
});
