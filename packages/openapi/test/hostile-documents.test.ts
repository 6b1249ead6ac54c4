import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OpenApiDocumentError, openApiTools } from '../src/index.ts';
import { loadDocument } from '../src/load-document.ts';

// Third-party documents: they decide what files a `$ref` names and how much a few bytes expand to.
const SECRET = 'AWS_SECRET_ACCESS_KEY=do-not-leak-42';

let root: string;
let docs: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolwire-openapi-'));
  docs = join(root, 'api');
  mkdirSync(join(docs, 'schemas'), { recursive: true });
  writeFileSync(join(root, 'secret.env'), SECRET);
  writeFileSync(join(docs, 'schemas', 'pet.json'), JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }));
  symlinkSync(join(root, 'secret.env'), join(docs, 'schemas', 'link.json'));
  // What sits next to a document in a project folder: the key file, notes, a hidden folder.
  writeFileSync(join(docs, '.env'), SECRET);
  writeFileSync(join(docs, 'notes.txt'), SECRET);
  mkdirSync(join(docs, '.private'));
  writeFileSync(join(docs, '.private', 'keys.json'), JSON.stringify({ type: 'string', description: SECRET }));
  symlinkSync(join(docs, '.env'), join(docs, 'schemas', 'env.json'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function operationWith(description: unknown, schema: unknown = { type: 'string' }): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'hostile', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: {
      '/a': {
        post: {
          operationId: 'a',
          description,
          requestBody: { content: { 'application/json': { schema } } },
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  };
}

function write(name: string, document: Record<string, unknown> | string): string {
  const path = join(docs, name);
  writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document));
  return path;
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(OpenApiDocumentError.isInstance(error)).toBe(true);
  return error as Error;
}

describe('external references in a document read from a file', () => {
  it('reads files next to the document', async () => {
    const tools = await openApiTools(write('inside.json', operationWith('Adds a pet', { $ref: './schemas/pet.json' })));
    expect(tools[0]?.inputSchema).toMatchObject({ properties: { body: { properties: { name: { type: 'string' } } } } });
  });

  it.each([
    ['a relative path out of the folder', '../secret.env'],
    ['an absolute path', '<root>/secret.env'],
    ['a file: URL', '<root-url>/secret.env'],
    ['a symbolic link that leads out', './schemas/link.json'],
  ])('refuses %s instead of reading it into a description', async (_, named) => {
    const ref = named.replace('<root>', root).replace('<root-url>', pathToFileURL(root).href);
    const error = await refusal(openApiTools(write('outside.json', operationWith({ $ref: ref }))));
    expect(error.message).toContain("points outside the document's folder");
    expect(error.message).not.toContain(SECRET);
  });

  it.each([
    ['a hidden file (.env)', './.env'],
    ['a file in a hidden folder', './.private/keys.json'],
    ['a text file', './notes.txt'],
    ['a .json link to a hidden file', './schemas/env.json'],
  ])('refuses %s next to the document: only JSON and YAML files are read', async (_, ref) => {
    const error = await refusal(openApiTools(write('dotfile.json', operationWith({ $ref: ref }))));
    expect(error.message).toContain('only JSON and YAML files next to the document');
    expect(error.message).not.toContain(SECRET);
  });

  it('refuses a hidden file named by a large document, read in the worker thread', async () => {
    // Over 256 KiB: read, measured and validated in a worker, with the same reader.
    const large = { ...operationWith({ $ref: './.env' }), 'x-padding': 'p'.repeat(300 * 1024) };
    const error = await refusal(openApiTools(write('large.json', large)));
    expect(error.message).toContain('only JSON and YAML files next to the document');
    expect(error.message).not.toContain(SECRET);
  });

  it('reads a document through a symbolic link, its references from where the file really is', async () => {
    write('linked.json', operationWith('Adds a pet', { $ref: './schemas/pet.json' }));
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(docs, 'linked.json'), join(root, 'elsewhere', 'api.json'));
    const tools = await openApiTools(join(root, 'elsewhere', 'api.json'));
    expect(tools[0]?.inputSchema).toMatchObject({ properties: { body: { properties: { name: { type: 'string' } } } } });
  });

  it('says a missing document file is missing', async () => {
    const error = await refusal(openApiTools(join(docs, 'missing.yaml')));
    expect(error.message).toContain(`the file ${join(docs, 'missing.yaml')} cannot be read`);
  });

  it('refuses a reference to something in the folder that is not a regular file', async () => {
    execFileSync('mkfifo', [join(docs, 'schemas', 'pipe.json')]);
    const error = await refusal(openApiTools(write('fifo.json', operationWith('x', { $ref: './schemas/pipe.json' }))));
    expect(error.message).toContain('is not a regular file');
  });

  it('never fetches an HTTP reference', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('"fetched"');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/d.json`;
      await refusal(openApiTools(write('http.json', operationWith({ $ref: url }))));
      await refusal(openApiTools(operationWith({ $ref: url })));
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });

  it('does not read external references of a document given as an object', async () => {
    await refusal(openApiTools(operationWith({ $ref: join(root, 'secret.env') })));
  });
});

describe('documents that expand', () => {
  it('refuses a YAML alias bomb quickly instead of walking a billion nodes', async () => {
    let yaml = 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\nservers: [{url: "https://api.example.com"}]\nx-lol:\n  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    for (let i = 1; i < 9; i++) yaml += `  a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]\n`;
    yaml += 'paths:\n  /a:\n    get:\n      operationId: a\n      responses: {"200": {description: ok}}\n';
    const error = await refusal(openApiTools(write('bomb.yaml', yaml)));
    expect(error.message).toContain('expands to more than 1000000 nodes');
  });

  it('refuses a $ref bomb (each schema using the one before six times)', async () => {
    const schemas: Record<string, unknown> = { s0: { type: 'string' } };
    for (let i = 1; i <= 12; i++) {
      schemas[`s${i}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: 6 }, (_, j) => [`p${j}`, { $ref: `#/components/schemas/s${i - 1}` }])) };
    }
    const document = { ...operationWith('x', { $ref: '#/components/schemas/s12' }), components: { schemas } };
    const error = await refusal(openApiTools(document));
    expect(error.message).toContain('raise `maxDocumentNodes`');
    // The same document is accepted with a budget that covers it, and each tool stays bounded.
    const few = Object.fromEntries(Object.entries(schemas).slice(0, 4));
    const small = { ...operationWith('x', { $ref: '#/components/schemas/s3' }), components: { schemas: few } };
    expect(await openApiTools(small, { maxDocumentNodes: 50_000 })).toHaveLength(1);
  });

  it('refuses a schema nested 10 000 levels deep with a typed error', async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 10_000; i++) schema = { type: 'object', properties: { p: schema } };
    const error = await refusal(openApiTools(operationWith('deep', schema)));
    expect(error.message).toMatch(/nested/);
  });
});

describe('where a document says requests go', () => {
  const bare = (servers: unknown[]) => ({ ...operationWith('x'), servers });

  it.each([
    ['a file: URL', [{ url: 'file:///etc' }]],
    ['a data: URL', [{ url: 'data:text/plain,hi' }]],
    ['credentials from a variable', [{ url: 'https://{h}/v1', variables: { h: { default: 'user:pw@evil.example' } } }]],
    ['a query from a variable', [{ url: 'https://api.example.com/{v}', variables: { v: { default: 'v1?key=1' } } }]],
  ])('refuses a server with %s and asks for baseURL', async (_, servers) => {
    const error = await refusal(openApiTools(bare(servers)));
    expect(error.message).toContain('pass `baseURL`');
    expect(error.message).not.toContain('pw');
  });

  it.each([
    ['not a url', 'is not an absolute URL'],
    ['ftp://files.example.com/', 'must be http or https, not ftp:'],
    ['https://user:hunter2@api.example.com/', 'must not hold credentials'],
    ['https://api.example.com/v1?key=abc', 'must not have a query'],
  ])('refuses baseURL %j with a TypeError that does not repeat it', async (baseURL, problem) => {
    const error: unknown = await openApiTools(operationWith('x'), { baseURL }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(problem);
    expect((error as Error).message).not.toContain(baseURL);
  });

  it('names only the first operations of a large document when a filter names an unknown one', async () => {
    const paths = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`/p${i}`, { get: { operationId: `op${i}`, responses: { 200: { description: 'ok' } } } }]));
    const error = await refusal(openApiTools({ ...operationWith('x'), paths }, { operations: ['nope'] }));
    expect(error.message).toContain('op49 and 250 more');
  });
});

describe('large documents', () => {
  const large = () => ({
    ...operationWith('x'),
    paths: Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [
        `/items${i}/{id}`,
        { get: { operationId: `get${i}`, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } },
      ]),
    ),
  });

  it('are validated in a worker thread: the event loop keeps running meanwhile', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const api = await loadDocument(large(), { maxNodes: 1_000_000 });
      expect(Object.keys(api.paths as object)).toHaveLength(3000);
    } finally {
      clearInterval(timer);
    }
    // Validating in place is one synchronous walk: not a single timer would fire.
    expect(ticks).toBeGreaterThan(0);
  });

  it('are validated in a worker thread also when a small document expands through its $refs', async () => {
    const schemas: Record<string, unknown> = { s0: { type: 'object', properties: { p: { type: 'string' } } } };
    for (let i = 1; i <= 5; i++) {
      schemas[`s${i}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: 6 }, (_, j) => [`p${j}`, { $ref: `#/components/schemas/s${i - 1}` }])) };
    }
    const document = { ...operationWith('x', { $ref: '#/components/schemas/s5' }), components: { schemas } };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const api = await loadDocument(document, { maxNodes: 1_000_000 });
      expect(api.components).toBeDefined();
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it('stop when the caller aborts: the load rejects with the reason and the worker reading the document is stopped', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      const controller = new AbortController();
      const reason = new Error('the caller gave up');
      const loading = openApiTools(large(), { signal: controller.signal });
      // Aborted while the worker reads (it takes far longer than a tick to validate 3000 operations).
      setImmediate(() => controller.abort(reason));
      await expect(loading).rejects.toBe(reason);
      expect(terminate).toHaveBeenCalledTimes(1);
    } finally {
      terminate.mockRestore();
    }
  });

  it('are not read at all with a signal already aborted', async () => {
    const reason = new Error('already gone');
    // A file that does not exist would otherwise be an OpenApiDocumentError.
    await expect(openApiTools(join(root, 'missing.yaml'), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await expect(loadDocument(large(), { maxNodes: 1_000_000 }, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  // A script that loads a 3000-operation document (a worker's job) with the package at `source`.
  const loadingScript = (source: string): string => {
    const script = join(root, `load-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(
      script,
      `import { openApiTools } from ${JSON.stringify(source)};
const paths = {};
for (let i = 0; i < 3000; i++) paths['/items' + i + '/{id}'] = { get: { operationId: 'get' + i, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } };
const tools = await openApiTools({ openapi: '3.0.3', info: { title: 't', version: '1' }, servers: [{ url: 'https://api.example.com' }], paths });
console.log('tools: ' + tools.length);
`,
    );
    return script;
  };

  it('are read in place where worker threads are not allowed (Node permission model without --allow-worker)', () => {
    const script = loadingScript(new URL('../src/index.ts', import.meta.url).href);
    const out = execFileSync(process.execPath, ['--permission', '--allow-fs-read=*', '--conditions=@toolwire/source', script], { encoding: 'utf8', timeout: 60_000 });
    expect(out).toContain('tools: 3000');
  });

  it("are read in place when the worker's file is missing (a bundler left it out)", () => {
    // A copy of the sources beside the real ones (so that its imports resolve), without the worker.
    const copy = mkdtempSync(join(fileURLToPath(new URL('..', import.meta.url)), '.no-worker-'));
    try {
      cpSync(fileURLToPath(new URL('../src', import.meta.url)), copy, { recursive: true, filter: (path) => !path.endsWith('load-document-worker.ts') && !path.endsWith('.test.ts') });
      const out = execFileSync(process.execPath, ['--conditions=@toolwire/source', loadingScript(pathToFileURL(join(copy, 'index.ts')).href)], { encoding: 'utf8', timeout: 60_000 });
      expect(out).toContain('tools: 3000');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('become tools like small ones', async () => {
    const tools = await openApiTools(large(), { operations: ['get2999'] });
    expect(tools.map((tool) => tool.name)).toEqual(['get2999']);
    expect(tools[0]?.inputSchema).toMatchObject({ required: ['id'] });
  });

  it('refuse a document object that cannot be copied, with a typed error', async () => {
    const error = await refusal(openApiTools({ ...operationWith('x'), 'x-handler': () => 1 }));
    expect(error.message).toContain('cannot be copied as data');
  });
});

describe('limits', () => {
  it.each([
    ['timeoutMs', 0],
    ['timeoutMs', -5],
    ['timeoutMs', 1e12],
    ['maxResponseBytes', Number.NaN],
    ['maxResultChars', 0.5],
    ['maxDocumentNodes', Number.NaN],
  ])('refuses %s: %s with a TypeError naming it (NaN would turn the bomb check off)', async (name, value) => {
    const error: unknown = await openApiTools(operationWith('x'), { [name]: value }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(`${name} must be a whole number`);
  });
});
