import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { OpenApiDocumentError } from './errors.ts';
import type { LoadAnswer, LoadRequest } from './load-document-worker.ts';
import { bundleDocument, DocumentProblem, measureDocument, validateDocument } from './read-document.ts';
import type { DocumentLimits } from './read-document.ts';

// The worker entry sits next to this file: `.ts` when run from src/ (tests, Node's type
// stripping), `.js` when run from the build.
const fromSource = import.meta.url.endsWith('.ts');
const workerEntry = fileURLToPath(new URL(fromSource ? './load-document-worker.ts' : './load-document-worker.js', import.meta.url));

// Below these (raw, then with `$ref`s expanded) a document validates in well under 100 ms,
// less than starting a worker costs.
const SMALL_DOCUMENT_NODES = 20_000;
const SMALL_DOCUMENT_BYTES = 256 * 1024;

/**
 * Reads, validates and dereferences a document (see `readDocument`). swagger-parser's
 * validation is one synchronous walk, about a second per 10 000 operations: a large
 * document (or a small one whose `$ref`s expand it) is read in a worker thread so the
 * caller's event loop keeps running; a small one in place, where a worker's start would
 * cost more than the walk.
 *
 * `signal`: once it aborts, the load rejects with its reason and a worker reading the document
 * is stopped; a read in place (a small document, well under a second) stops at its next step.
 */
export async function loadDocument(document: Record<string, unknown> | string, limits: DocumentLimits, signal?: AbortSignal): Promise<Record<string, unknown>> {
  signal?.throwIfAborted();
  if (!(await isSmall(document))) {
    const api = await readInWorker(document, limits, signal);
    // No worker could start: read in place, as a small document is.
    if (api !== undefined) return api;
  }
  let bundled: Record<string, unknown>;
  try {
    signal?.throwIfAborted();
    bundled = await bundleDocument(typeof document === 'string' ? document : copy(document));
    signal?.throwIfAborted();
    // A small file can still expand to a large document through its `$ref`s.
    if (measureDocument(bundled, limits) > SMALL_DOCUMENT_NODES) {
      const api = await readInWorker(bundled, limits, signal);
      if (api !== undefined) return api;
    }
    signal?.throwIfAborted();
    return await validateDocument(bundled);
  } catch (cause) {
    if (signal?.aborted === true && cause === signal.reason) throw cause;
    if (OpenApiDocumentError.isInstance(cause)) throw cause;
    throw new OpenApiDocumentError({ problem: cause instanceof DocumentProblem ? cause.message : `it cannot be read (${describe(cause)})`, cause });
  }
}

/**
 * Reads a document in a worker thread that ends with the call; undefined when no worker can
 * start (Node's permission model without `--allow-worker`, or a bundler that left the worker's
 * file out): the worker spares the event loop, it is not needed to read the document.
 */
async function readInWorker(document: Record<string, unknown> | string, limits: DocumentLimits, signal: AbortSignal | undefined): Promise<Record<string, unknown> | undefined> {
  signal?.throwIfAborted();
  const request: LoadRequest = { document, limits };
  let worker: Worker;
  try {
    worker = new Worker(workerEntry, { workerData: request });
  } catch (cause) {
    if (cause instanceof RangeError || (cause instanceof Error && cause.name === 'DataCloneError')) throw copyProblem(cause);
    return undefined;
  }
  let onAbort: (() => void) | undefined;
  const answer = await new Promise<LoadAnswer | 'aborted' | undefined>((resolve) => {
    worker.once('message', (message: LoadAnswer) => resolve(message));
    worker.once('error', (error: unknown) => resolve(isMissingEntry(error) ? undefined : { ok: false, problem: `it cannot be read (${describe(error)})` }));
    worker.once('exit', (code) => resolve({ ok: false, problem: `its reader stopped (exit code ${code})` }));
    if (signal !== undefined) {
      onAbort = () => resolve('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  // Stops the walk where it is (an aborted load does not go on reading in the background).
  await worker.terminate();
  if (answer === 'aborted') throw signal?.reason;
  if (answer === undefined) return undefined;
  if (!answer.ok) throw new OpenApiDocumentError({ problem: answer.problem });
  return answer.api;
}

// The worker's own file is missing (not a module the document or the parser needs).
function isMissingEntry(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return error instanceof Error && (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && error.message.includes(workerEntry);
}

async function isSmall(document: Record<string, unknown> | string): Promise<boolean> {
  if (typeof document === 'string') {
    try {
      return (await stat(document)).size <= SMALL_DOCUMENT_BYTES;
    } catch {
      // Missing: let the reader say so.
      return true;
    }
  }
  // Counted without recursion and without following anything, up to the threshold.
  const stack: unknown[] = [document];
  for (let count = 0; stack.length > 0; count++) {
    if (count > SMALL_DOCUMENT_NODES) return false;
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    // One push per child: spreading a 100 000-element array into push() overflows the stack.
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push(child);
  }
  return true;
}

// The parser changes what it reads; the caller's object stays theirs.
function copy(document: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(document);
  } catch (cause) {
    throw copyProblem(cause);
  }
}

function copyProblem(cause: unknown): OpenApiDocumentError {
  if (cause instanceof RangeError) return new OpenApiDocumentError({ problem: 'it is nested too deeply to be read (thousands of levels)', cause });
  // Functions, symbols or class instances in a document object.
  return new OpenApiDocumentError({ problem: `it cannot be copied as data (${describe(cause)})`, cause });
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
