import { parentPort, workerData } from 'node:worker_threads';
import { DocumentProblem, readDocument } from './read-document.ts';
import type { DocumentLimits } from './read-document.ts';

/** What `loadDocument` sends the worker. */
export interface LoadRequest {
  document: Record<string, unknown> | string;
  limits: DocumentLimits;
}

/** What the worker answers: the dereferenced document, or why it cannot be used. */
export type LoadAnswer = { ok: true; api: Record<string, unknown> } | { ok: false; problem: string };

const request = workerData as LoadRequest;
let answer: LoadAnswer;
try {
  answer = { ok: true, api: await readDocument(request.document, request.limits) };
} catch (error) {
  answer = { ok: false, problem: error instanceof DocumentProblem ? error.message : `it cannot be read (${error instanceof Error ? error.message : String(error)})` };
}
try {
  parentPort?.postMessage(answer);
} catch (error) {
  // A value the structured clone cannot copy (none should come from JSON or YAML).
  parentPort?.postMessage({ ok: false, problem: error instanceof Error ? error.message : String(error) } satisfies LoadAnswer);
}
