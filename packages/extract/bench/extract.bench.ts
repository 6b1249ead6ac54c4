// Throughput of extraction (batch and streaming) on prose, the real corpus and adversarial
// input, each beside JSON.parse on a JSON document of the same content, in the same run.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createToolCallParser, extractToolCalls } from '@toolwire/extract';
import { compare } from '../../../bench/harness.ts';

const MB = 1024 * 1024;

function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** The same content as JSON: prose as strings, calls as `{name, arguments}` objects. */
function asJson(text: string): string {
  const parser = createToolCallParser();
  const parts: unknown[] = [];
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.type === 'tool-call') parts.push({ name: event.toolCall.name, arguments: event.toolCall.arguments });
    else if ('text' in event) parts.push(event.text);
  }
  return JSON.stringify(parts);
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function stream(parts: readonly string[]): number {
  const parser = createToolCallParser();
  let calls = 0;
  for (const part of parts) for (const event of parser.push(part)) if (event.type === 'tool-call') calls++;
  for (const event of parser.end()) if (event.type === 'tool-call') calls++;
  return calls;
}

const bytes = (s: string): number => Buffer.byteLength(s);

// (a) 10 MB of prose with sparse calls.
const WORDS = 'the model answered that the weather in Paris is mild and sunny while traffic was light, so I will check again later today'.split(' ');
const random = lcg(7);
const proseParts: string[] = [];
let proseLength = 0;
while (proseLength < 10 * MB) {
  let sentence = '';
  for (let w = 0; w < 12; w++) sentence += `${WORDS[Math.floor(random() * WORDS.length)] ?? 'the'} `;
  sentence += random() < 0.02 ? `search_docs(query="item ${proseParts.length}", limit=${proseParts.length % 50}). ` : '. ';
  if (proseParts.length % 8 === 7) sentence += '\n\n';
  proseParts.push(sentence);
  proseLength += sentence.length;
}
const prose = proseParts.join('');
const proseJson = asJson(prose);

// (b) the corpus texts, concatenated.
const corpus = gunzipSync(readFileSync(new URL('../src/__fixtures__/bfcl-airev-agent-0.8b.jsonl.gz', import.meta.url)))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((line) => (JSON.parse(line) as { text: string }).text)
  .join('\n');
const corpusJson = asJson(corpus);

// (c) adversarial input: nested unclosed calls, and an unclosed quote.
const nested1 = 'a('.repeat(MB / 2);
const nested2 = 'a('.repeat(MB);
const quote1 = `f(a="${'x'.repeat(MB - 5)}`;
const quote2 = `f(a="${'x'.repeat(2 * MB - 5)}`;
const adversarialJson = JSON.stringify([nested1]);

console.log(`prose: ${(bytes(prose) / MB).toFixed(1)} MB, ${extractToolCalls(prose).length} calls; corpus: ${(bytes(corpus) / MB).toFixed(2)} MB, ${extractToolCalls(corpus).length} calls`);

await compare({
  title: '(a) 10 MB of prose with sparse calls',
  baseline: { name: 'JSON.parse (same content)', bytes: bytes(proseJson), fn: () => JSON.parse(proseJson) as unknown },
  cases: [
    { name: 'extractToolCalls, any name', bytes: bytes(prose), fn: () => extractToolCalls(prose) },
    { name: 'extractToolCalls, allow-list', bytes: bytes(prose), fn: () => extractToolCalls(prose, { tools: ['search_docs'] }) },
  ],
});

const corpus1 = chunks(corpus, 1);
const corpus16 = chunks(corpus, 16);
const corpus4k = chunks(corpus, 4096);
await compare({
  title: '(b) the corpus texts concatenated, batch and streaming',
  baseline: { name: 'JSON.parse (same content)', bytes: bytes(corpusJson), fn: () => JSON.parse(corpusJson) as unknown },
  cases: [
    { name: 'extractToolCalls', bytes: bytes(corpus), fn: () => extractToolCalls(corpus) },
    { name: 'streaming, 4 KB chunks', bytes: bytes(corpus), fn: () => stream(corpus4k) },
    { name: 'streaming, 16-byte chunks', bytes: bytes(corpus), fn: () => stream(corpus16) },
    { name: 'streaming, 1-byte chunks', bytes: bytes(corpus), fn: () => stream(corpus1) },
  ],
});

await compare({
  title: '(c) adversarial input at 1 MB and 2 MB (equal MB/s means linear)',
  baseline: { name: 'JSON.parse (1 MB as a string)', bytes: bytes(adversarialJson), fn: () => JSON.parse(adversarialJson) as unknown },
  cases: [
    { name: 'a(a(a(… 1 MB', bytes: nested1.length, fn: () => extractToolCalls(nested1) },
    { name: 'a(a(a(… 2 MB', bytes: nested2.length, fn: () => extractToolCalls(nested2) },
    { name: 'unclosed quote 1 MB', bytes: quote1.length, fn: () => extractToolCalls(quote1) },
    { name: 'unclosed quote 2 MB', bytes: quote2.length, fn: () => extractToolCalls(quote2) },
  ],
});
