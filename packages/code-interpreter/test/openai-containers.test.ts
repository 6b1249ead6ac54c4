import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { InvalidToolConfigError } from '@toolwire/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ContainerExpiredError, createContainerClient, UnsupportedUploadError } from '../src/index.ts';
import type { CodeInterpreterEvent } from '../src/index.ts';
import { jsonBody, openAIError, startLocalOpenAIServer } from './helpers/local-openai-server.ts';
import type { LocalOpenAIServer, RecordedRequest, Reply } from './helpers/local-openai-server.ts';

const ID = 'cntr_6903bf2c0470819090b2b1e63e0b66800c139a5d654a42ec';
const EXPIRED = 'cntr_expired000000000000000000000000000000000000000';
const GONE = 'cntr_gone0000000000000000000000000000000000000000000';
const fileContent = Buffer.from('1\n2\nTOTAL: 3\n');

function containerObject(body: any): unknown {
  return {
    id: ID,
    object: 'container',
    name: body.name,
    status: 'running',
    created_at: 1761853223,
    last_active_at: 1761853223,
    expires_after: body.expires_after ?? { anchor: 'last_active_at', minutes: 20 },
    memory_limit: body.memory_limit,
  };
}

function fileObject(id: string, path: string, bytes: number, source: string): unknown {
  return { id, object: 'container.file', bytes, container_id: ID, created_at: 1761853300, path, source };
}

function route(request: RecordedRequest): Reply | undefined {
  const { method, path } = request;
  if (path.startsWith(`/containers/${EXPIRED}`)) return openAIError(400, 'Container is expired.');
  if (path.startsWith(`/containers/${GONE}`)) return openAIError(404, 'Container has expired.');
  if (method === 'POST' && path === '/containers') return { json: containerObject(jsonBody(request)) };
  if (method === 'GET' && path === `/containers/${ID}`) return { json: { ...(containerObject({ name: 'old' }) as object), status: 'expired' } };
  if (method === 'POST' && path === `/containers/${ID}/files`) {
    return { json: fileObject('cfile_uploaded', '/mnt/data/sales.csv', request.body.length, 'user') };
  }
  if (method === 'GET' && path === `/containers/${ID}/files`) {
    // Two pages, to prove every page is read.
    if (!request.search.includes('after=')) {
      return { json: { object: 'list', data: [fileObject('cfile_1', '/mnt/data/a.csv', 10, 'user')], first_id: 'cfile_1', last_id: 'cfile_1', has_more: true } };
    }
    return { json: { object: 'list', data: [fileObject('cfile_2', '/mnt/data/b.png', 20, 'assistant')], first_id: 'cfile_2', last_id: 'cfile_2', has_more: false } };
  }
  if (method === 'GET' && path === `/containers/${ID}/files/cfile_2/content`) return { bytes: fileContent, contentType: 'application/octet-stream' };
  if (method === 'DELETE' && path === `/containers/${ID}`) return { json: { id: ID, object: 'container.deleted', deleted: true } };
  return undefined;
}

let server: LocalOpenAIServer;
let dir: string;
let events: CodeInterpreterEvent[];
let containers: ReturnType<typeof createContainerClient>;

beforeAll(async () => {
  server = await startLocalOpenAIServer(route);
  dir = await mkdtemp(join(tmpdir(), 'toolwire-ci-containers-'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.requests.length = 0;
  events = [];
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL, maxRetries: 0 });
  containers = createContainerClient({ client, onEvent: (e) => events.push(e) });
});

describe('createContainerClient through the openai SDK', () => {
  it('creates a container with a memory tier and reports its id and tier', async () => {
    const info = await containers.create({ name: 'analysis', memoryLimit: '4g', fileIds: ['file-abc'], expiresAfterMinutes: 10 });
    expect(jsonBody(server.requests[0]!)).toEqual({
      name: 'analysis',
      memory_limit: '4g',
      file_ids: ['file-abc'],
      expires_after: { anchor: 'last_active_at', minutes: 10 },
    });
    expect(info).toMatchObject({ id: ID, name: 'analysis', status: 'running', memoryLimit: '4g' });
    expect(events).toEqual([{ type: 'container-created', containerId: ID, name: 'analysis', memoryLimit: '4g' }]);
  });

  it('sends the default 1g tier explicitly', async () => {
    await containers.create();
    expect(jsonBody(server.requests[0]!)).toEqual({ name: 'toolwire-code-interpreter', memory_limit: '1g' });
  });

  it('rejects a bad tier or expiry before sending anything', async () => {
    await expect(containers.create({ memoryLimit: '32g' as never })).rejects.toThrow(InvalidToolConfigError);
    await expect(containers.create({ expiresAfterMinutes: 60 })).rejects.toThrow(/1 to 20/);
    expect(server.requests).toHaveLength(0);
  });

  it('uploads a file from disk as multipart with its name and type', async () => {
    const path = join(dir, 'sales.csv');
    await writeFile(path, 'region,total\nnorth,3\n');
    const file = await containers.upload(ID, { path });
    expect(file).toMatchObject({ id: 'cfile_uploaded', containerId: ID, path: '/mnt/data/sales.csv', source: 'user' });
    const request = server.requests[0]!;
    expect(request.headers['content-type']).toContain('multipart/form-data');
    const body = request.body.toString('utf8');
    expect(body).toContain('filename="sales.csv"');
    expect(body).toContain('Content-Type: text/csv');
    expect(body).toContain('region,total');
    expect(events[0]).toMatchObject({ type: 'file-uploaded', containerId: ID, fileId: 'cfile_uploaded', filename: 'sales.csv' });
  });

  it('uploads bytes with a file name', async () => {
    await containers.upload(ID, { data: new TextEncoder().encode('{"a":1}'), filename: 'a.json' });
    expect(server.requests[0]!.body.toString('utf8')).toContain('filename="a.json"');
  });

  it('refuses an unsupported file type or size without sending a request', async () => {
    const path = join(dir, 'tool.exe');
    await writeFile(path, 'MZ');
    await expect(containers.upload(ID, { path })).rejects.toSatisfy((e) => UnsupportedUploadError.isInstance(e) && e.reason === 'extension');
    const small = createContainerClient({ client: new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL }), maxUploadBytes: 3 });
    await expect(small.upload(ID, { data: new Uint8Array(4), filename: 'a.txt' })).rejects.toSatisfy(
      (e) => UnsupportedUploadError.isInstance(e) && e.reason === 'size',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('lists files across pages', async () => {
    const files = await containers.listFiles(ID);
    expect(files.map((f) => [f.id, f.path, f.source])).toEqual([
      ['cfile_1', '/mnt/data/a.csv', 'user'],
      ['cfile_2', '/mnt/data/b.png', 'assistant'],
    ]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.search).toContain('after=cfile_1');
  });

  it('downloads a file to a path', async () => {
    const to = join(dir, 'b.bin');
    expect(await containers.download(ID, 'cfile_2', { to })).toEqual({ path: to, bytes: fileContent.length });
    expect(await readFile(to)).toEqual(fileContent);
  });

  it('streams a file', async () => {
    const stream = await containers.stream(ID, 'cfile_2');
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(Buffer.concat(chunks)).toEqual(fileContent);
  });

  it('deletes a container', async () => {
    await containers.delete(ID);
    expect(server.requests[0]).toMatchObject({ method: 'DELETE', path: `/containers/${ID}` });
    expect(events).toEqual([{ type: 'container-deleted', containerId: ID }]);
  });

  it('reports a container that OpenAI lists as expired', async () => {
    expect((await containers.retrieve(ID)).status).toBe('expired');
    expect(events).toEqual([{ type: 'container-expired', containerId: ID }]);
  });

  it('turns 400 "Container is expired." into ContainerExpiredError with the id', async () => {
    const error = await containers.listFiles(EXPIRED).catch((e: unknown) => e);
    expect(ContainerExpiredError.isInstance(error)).toBe(true);
    expect((error as ContainerExpiredError).containerId).toBe(EXPIRED);
    expect((error as Error).message).toContain('Create a fresh one');
    expect(events).toEqual([{ type: 'container-expired', containerId: EXPIRED }]);
  });

  it('turns the 404 variant into ContainerExpiredError for uploads and downloads too', async () => {
    await expect(containers.upload(GONE, { data: new Uint8Array(1), filename: 'a.txt' })).rejects.toSatisfy((e) =>
      ContainerExpiredError.isInstance(e),
    );
    await expect(containers.download(GONE, 'cfile_2', { to: join(dir, 'x') })).rejects.toSatisfy(
      (e) => ContainerExpiredError.isInstance(e) && e.status === 404,
    );
  });

  it('rejects a malformed container id before any request', async () => {
    await expect(containers.listFiles('not-a-container')).rejects.toThrow(InvalidToolConfigError);
    expect(server.requests).toHaveLength(0);
  });
});
