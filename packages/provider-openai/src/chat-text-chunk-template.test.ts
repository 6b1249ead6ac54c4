import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { learnChatTextChunkTemplate, matchChatTextChunk } from './chat-text-chunk-template.ts';

const text = (content: string, extra = ''): string =>
  `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m"${extra},"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]}`;

const learn = (payload: string) => learnChatTextChunkTemplate(payload, JSON.parse(payload) as ChatCompletionChunk);

/** What the template says a payload's text is, checked against parsing it. */
function readBoth(template: NonNullable<ReturnType<typeof learn>>, payload: string): { matched: string | undefined; parsed: unknown } {
  let parsed: unknown;
  try {
    parsed = (JSON.parse(payload) as ChatCompletionChunk).choices[0]?.delta.content;
  } catch {
    parsed = 'unparseable';
  }
  return { matched: matchChatTextChunk(template, payload), parsed };
}

describe('learnChatTextChunkTemplate', () => {
  it('learns the JSON around the text of a plain text chunk', () => {
    const template = learn(text('Hello'));
    expect(template).toEqual({
      prefix: '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":',
      suffix: '},"logprobs":null,"finish_reason":null}]}',
    });
  });

  it('learns nothing from chunks that map to more than a text delta', () => {
    const role = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}';
    const finish = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}';
    const usage = '{"id":"c1","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
    const reasoning = '{"id":"c1","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x","reasoning_content":"y"},"finish_reason":null}]}';
    const two = '{"id":"c1","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{"content":"y"}}]}';
    for (const payload of [role, finish, usage, reasoning, two]) expect(learn(payload)).toBeUndefined();
  });

  it('learns nothing when the text it would read is not where the chunk\'s text comes from, even when that text is the probe\'s', () => {
    for (const payload of [
      '{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"EVIL","\\u0063ontent":"probe"}}]}',
      '{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"EVIL","\\u0063ontent":"probe!"}}]}',
    ]) {
      const template = learn(payload);
      // Either nothing is learned, or what is learned reads what parsing reads.
      if (template !== undefined) expect(readBoth(template, payload)).toEqual({ matched: 'probe', parsed: 'probe' });
      expect(template).toBeUndefined();
    }
  });

  it('finds the text after white space and escapes, and the last content key', () => {
    const spaced = '{ "id": "c1", "model": "m", "choices": [ { "index": 0, "delta": { "content": "a \\"quoted\\" word" }, "finish_reason": null } ] }';
    const template = learn(spaced);
    expect(template?.prefix.endsWith('"content": ')).toBe(true);
    expect(template?.suffix).toBe(' }, "finish_reason": null } ] }');
  });
});

describe('matchChatTextChunk', () => {
  const template = learn(text('first', ',"system_fingerprint":"fp"'));
  if (template === undefined) throw new Error('no template');

  it('reads the text of chunks like the one learned, as parsing them would', () => {
    for (const content of ['tok ', '', ' world', 'héllo 😀', '\u2028', 'a'.repeat(1000)]) {
      const payload = text(content, ',"system_fingerprint":"fp"');
      expect(readBoth(template, payload)).toEqual({ matched: content, parsed: content });
    }
  });

  it('leaves escaped text, other shapes and garbage to the parser', () => {
    const misses = [
      text('a "quote"', ',"system_fingerprint":"fp"'),
      text('line\nbreak', ',"system_fingerprint":"fp"'),
      text('tok', ',"system_fingerprint":"other"'),
      text('tok', ',"system_fingerprint":"fp","obfuscation":"abc"'),
      `${template.prefix}"unterminated${template.suffix.slice(1)}`,
      `${template.prefix}"a","b"${template.suffix}`,
      `${template.prefix}"a\tb"${template.suffix}`,
      `${template.prefix}42${template.suffix}`,
      `${template.prefix}"${template.suffix}`,
      template.prefix,
      '',
    ];
    for (const payload of misses) expect(matchChatTextChunk(template, payload)).toBeUndefined();
  });
});
