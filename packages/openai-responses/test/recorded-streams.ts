// Recorded Responses streams from src/__fixtures__ (sources and licences in SOURCES.md there).
import { readFileSync } from 'node:fs';
import { eventLines } from '../src/testing/index.ts';
import type { ResponsesEventObject, ResponsesResponseObject } from '../src/testing/index.ts';

const fixtures = new URL('../src/__fixtures__/', import.meta.url);

/** A `*.chunks.txt` recording: one JSON event per line. */
export function chunkEvents(name: string): ResponsesEventObject[] {
  return eventLines(readFileSync(new URL(name, fixtures), 'utf8'));
}

/** The recorded stream events of a code-interpreter run (gpt-5-nano). */
export function codeInterpreterChunks(): ResponsesEventObject[] {
  return chunkEvents('openai-code-interpreter-tool.1.chunks.txt');
}

/** The recorded non-streaming response of a code-interpreter run. */
export function codeInterpreterResponse(): ResponsesResponseObject {
  return JSON.parse(readFileSync(new URL('openai-code-interpreter-tool.1.json', fixtures), 'utf8')) as ResponsesResponseObject;
}

/**
 * The SSE body of the first interaction of a VCR cassette (YAML), read without a YAML
 * parser: the `string: |+` block scalar under `response.body`, with its indentation removed.
 */
export function cassetteSse(name: string): string {
  const lines = readFileSync(new URL(`pydantic-ai-cassettes/${name}`, fixtures), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trimStart().startsWith('string: |'));
  if (start < 0) throw new Error(`${name} has no block-scalar body`);
  const indent = lines[start]!.length - lines[start]!.trimStart().length + 2;
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() !== '' && line.length - line.trimStart().length < indent) break;
    body.push(line.slice(indent));
  }
  // Every line of a block scalar ends with a newline; `|+` keeps the trailing ones.
  return body.map((line) => `${line}\n`).join('');
}

/** The `data:` payloads of an SSE text (each on one line in these recordings). */
export function sseEvents(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
  }
  return events;
}
