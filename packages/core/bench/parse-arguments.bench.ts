// parseArguments throughput on a generated 1 MB set of argument strings, beside JSON.parse
// on the same values written as JSON, measured in the same run.
import { parseArguments } from '@toolwire/core';
import { compare } from '../../../bench/harness.ts';

const TARGET_BYTES = 1024 * 1024;
const CITIES = ['Paris', 'New York', 'São Paulo', 'Zürich', 'Tokyo', 'Xi\'an'];

/** A small deterministic generator, so every run measures the same set. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function quote(s: string): string {
  return JSON.stringify(s);
}

const random = lcg(42);
const argumentTexts: string[] = [];
const jsonTexts: string[] = [];
let bytes = 0;
let jsonBytes = 0;
while (bytes < TARGET_BYTES) {
  const i = argumentTexts.length;
  const city = CITIES[Math.floor(random() * CITIES.length)] ?? 'Paris';
  const limit = Math.floor(random() * 1000);
  const ratio = Math.round(random() * 10_000) / 100;
  const query = `item ${i}, "quoted" (${limit})`;
  const values = { query, city, limit, ratio, exact: random() < 0.5, tags: ['a', 'b', String(i)], filter: { max: limit, unit: 'km' } };
  const text =
    i % 3 === 0
      ? `query=${quote(query)}, city=${quote(city)}, limit=${limit}, ratio=${ratio}, exact=${values.exact ? 'True' : 'False'}, tags=['a', 'b', '${i}'], filter={"max": ${limit}, "unit": "km"}`
      : i % 3 === 1
        ? JSON.stringify(values)
        : `${quote(query)}, ${quote(city)}, limit=${limit}, ratio=${ratio}, exact=${values.exact}, tags=["a", "b", "${i}"], filter={'max': ${limit}, 'unit': 'km'}`;
  const json = JSON.stringify(values);
  argumentTexts.push(text);
  jsonTexts.push(json);
  bytes += Buffer.byteLength(text);
  jsonBytes += Buffer.byteLength(json);
}

// Sanity check outside the timed loop: the set parses.
for (const text of argumentTexts) parseArguments(text);

await compare({
  title: `parseArguments on ${argumentTexts.length} argument strings (${(bytes / 1024 / 1024).toFixed(2)} MB)`,
  baseline: {
    name: 'JSON.parse (same values as JSON)',
    bytes: jsonBytes,
    fn: () => {
      for (const text of jsonTexts) JSON.parse(text);
    },
  },
  cases: [
    {
      name: 'parseArguments',
      bytes,
      fn: () => {
        for (const text of argumentTexts) parseArguments(text);
      },
    },
  ],
  timeMs: 1000,
});
