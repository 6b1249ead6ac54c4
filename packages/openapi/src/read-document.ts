import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';

// Runs in a worker thread (see `load-document.ts`): no workspace imports, plain errors.

/** Why a document cannot be used; the message completes "The OpenAPI document cannot be used: …". */
export class DocumentProblem extends Error {}

/** Limits on what a document may cost before it is validated and dereferenced. */
export interface DocumentLimits {
  /** Nodes (objects, arrays, values) the document may have once every `$ref` and YAML alias is expanded. */
  maxNodes: number;
}

// The largest file read: the largest published API descriptions are a few tens of MB.
const MAX_FILE_BYTES = 128 * 1024 * 1024;

// Deeper than this (with references followed) is a broken or hostile document, and would
// overflow the stack of the validator.
const MAX_DEPTH = 1000;

/**
 * Parses, resolves and validates a document (an object is changed: pass a copy), then
 * dereferences it (cycles left as `$ref`s): `bundleDocument`, `measureDocument` and
 * `validateDocument` in a row.
 */
export async function readDocument(document: Record<string, unknown> | string, limits: DocumentLimits): Promise<Record<string, unknown>> {
  const bundled = await bundleDocument(document);
  measureDocument(bundled, limits);
  return validateDocument(bundled);
}

/**
 * The document with its external `$ref`s pulled in as internal ones, nothing expanded.
 * External files are read only from the document's own folder (symbolic links followed,
 * then checked), only JSON and YAML files that are not hidden, never over HTTP; a document
 * given as an object reads nothing external.
 */
export async function bundleDocument(document: Record<string, unknown> | string): Promise<Record<string, unknown>> {
  // A linked document is read where it really is: its folder is where its references lead.
  const file = typeof document === 'string' ? await documentFile(document) : undefined;
  try {
    return (await SwaggerParser.bundle((file ?? document) as never, {
      resolve: {
        external: file !== undefined,
        http: false,
        ...(file === undefined ? {} : { file: { read: (referenced: { url: string }) => readInside(file, referenced.url) } }),
      },
    })) as unknown as Record<string, unknown>;
  } catch (cause) {
    if (cause instanceof RangeError) throw new DocumentProblem('it is nested too deeply to be read (thousands of levels)');
    throw new DocumentProblem(cause instanceof Error ? cause.message : String(cause));
  }
}

async function documentFile(path: string): Promise<string> {
  try {
    return await realpath(resolve(path));
  } catch (cause) {
    throw new DocumentProblem(`the file ${path} cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`);
  }
}

/** Validates a bundled document against the OpenAPI schema and dereferences it (in place). */
export async function validateDocument(bundled: Record<string, unknown>): Promise<Record<string, unknown>> {
  try {
    const parsed = await SwaggerParser.validate(bundled as never, { resolve: { external: false, http: false }, dereference: { circular: 'ignore' } });
    return parsed as unknown as Record<string, unknown>;
  } catch (cause) {
    throw new DocumentProblem(cause instanceof Error ? cause.message : String(cause));
  }
}

// What external references may name: the parts of an API description, never the `.env`,
// key files or notes that share its folder (their text would become a description the model reads).
const DOCUMENT_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

// A `$ref` may name any file; only JSON and YAML files inside the document's folder are read.
async function readInside(document: string, url: string): Promise<Buffer> {
  let path: string;
  try {
    path = url.startsWith('file:') ? fileURLToPath(url) : fileURLToPath(new URL(url, 'file:///'));
  } catch {
    throw new Error(`the reference "${url}" is not a file path`);
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new Error(`the referenced file ${path} cannot be read`);
  }
  // The document itself, whatever its name.
  if (real !== document) {
    const folder = dirname(document);
    const inside = relative(folder, real);
    if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
      throw new Error(`the reference to ${path} points outside the document's folder ${folder}; only files next to the document (or below it) are read`);
    }
    if (inside.split(sep).some((part) => part.startsWith('.')) || !DOCUMENT_EXTENSIONS.has(extname(real).toLowerCase())) {
      throw new Error(`the reference to ${path} names a file that is hidden or not .json, .yaml or .yml; only JSON and YAML files next to the document (or below it) are read`);
    }
  }
  // Not a device (`/dev/zero` never ends), a FIFO (never answers) or a file no API needs.
  const info = await stat(real);
  if (!info.isFile()) throw new Error(`${path} is not a regular file`);
  if (info.size > MAX_FILE_BYTES) throw new Error(`${path} is larger than ${MAX_FILE_BYTES} bytes`);
  return readFile(real);
}

interface Measured {
  nodes: number;
  height: number;
}

/**
 * The number of nodes the validator would walk: every internal `$ref` and shared object (a
 * YAML alias) counted as often as it is used, computed once per object, so a bomb of a few
 * hundred bytes that expands to billions is refused in milliseconds. A reference in a cycle
 * counts once, as the dereferencer leaves it in place.
 */
export function measureDocument(root: Record<string, unknown>, limits: DocumentLimits): number {
  const done = new Map<object, Measured>();
  const active = new Set<object>();
  const tooLarge = () =>
    new DocumentProblem(
      `it expands to more than ${limits.maxNodes} nodes once its $refs and YAML aliases are resolved (a reference bomb, or a very large API); raise \`maxDocumentNodes\` if you trust it`,
    );

  const visit = (value: unknown, depth: number): Measured => {
    if (depth > MAX_DEPTH) throw new DocumentProblem(`it is nested more than ${MAX_DEPTH} levels deep (with $refs followed)`);
    if (typeof value !== 'object' || value === null) return { nodes: 1, height: 1 };
    let target: object = value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#')) {
      const resolved = resolvePointer(root, ref);
      if (typeof resolved === 'object' && resolved !== null) target = resolved;
    }
    const known = done.get(target);
    if (known !== undefined) {
      if (depth + known.height > MAX_DEPTH) throw new DocumentProblem(`it is nested more than ${MAX_DEPTH} levels deep (with $refs followed)`);
      return known;
    }
    if (active.has(target)) return { nodes: 1, height: 1 };
    active.add(target);
    let nodes = 1;
    let height = 0;
    for (const child of Array.isArray(target) ? target : Object.values(target)) {
      const measured = visit(child, depth + 1);
      nodes += measured.nodes;
      if (nodes > limits.maxNodes) throw tooLarge();
      if (measured.height > height) height = measured.height;
    }
    active.delete(target);
    const result = { nodes, height: height + 1 };
    done.set(target, result);
    return result;
  };
  return visit(root, 0).nodes;
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node = root;
  for (const raw of ref.slice(2).split('/')) {
    let key = raw;
    try {
      key = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all.
    }
    key = key.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
