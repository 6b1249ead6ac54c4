import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executeToolCall, runTools, ToolRegistry, UnsupportedFeatureError } from '@toolwire/core';
import type { Tool, ToolResult } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiDocumentError, openApiTools } from '../src/index.ts';
import { API_KEY, startPetsApi } from './pets-api.ts';
import type { PetsApi } from './pets-api.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const petsDocument = JSON.parse(readFileSync(join(fixtures, 'pets.openapi.json'), 'utf8')) as Record<string, unknown>;

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

let callNumber = 0;
function call(tools: Tool[], name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return executeToolCall({ id: `call_${++callNumber}`, name, arguments: args }, { registry: new ToolRegistry({ tools }) });
}

function petsTools(extra: Parameters<typeof openApiTools>[1] = {}): Promise<Tool[]> {
  return openApiTools(petsDocument, {
    baseURL: `${api.origin}/v1`,
    allowPrivateNetwork: true,
    auth: { type: 'header', name: 'x-api-key', value: API_KEY },
    timeoutMs: 1000,
    ...extra,
  });
}

describe('openApiTools with an OpenAPI 3.0 document', () => {
  let tools: Tool[];
  const warnings: string[] = [];
  beforeAll(async () => {
    tools = await petsTools({ onWarning: (message) => warnings.push(message) });
  });

  it('makes one tool per operation, named by operationId or by method and path', () => {
    expect(tools.map((tool) => tool.name)).toEqual(['listPets', 'createPet', 'showPetById', 'deletePet', 'get_status']);
    expect(tools.find((tool) => tool.name === 'deletePet')?.description).toBe('Deprecated. Remove a pet');
    expect(warnings).toEqual([expect.stringContaining('uploadPhoto is left out: its request body is only in image/png')]);
  });

  it('merges parameters and the request body into one JSON Schema, converted from 3.0', () => {
    const list = tools.find((tool) => tool.name === 'listPets')!;
    expect(list.inputSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', maximum: 100, description: 'How many to return' },
        tags: { type: 'array', items: { type: 'string' } },
        'X-Request-Id': { type: 'string' },
      },
    });
    const create = tools.find((tool) => tool.name === 'createPet')!;
    expect(create.inputSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['body'],
      properties: {
        body: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', minLength: 1 },
            tag: { type: ['string', 'null'] },
            age: { type: 'integer', exclusiveMinimum: 0, examples: [3] },
          },
        },
      },
    });
    expect(tools.find((tool) => tool.name === 'showPetById')!.inputSchema).toMatchObject({ required: ['petId'] });
  });

  it('sends query and header parameters and the auth header, and returns the body as a value', async () => {
    const result = await call(tools, 'listPets', { limit: 5, tags: ['dog', 'cat'], 'X-Request-Id': 'req-1' });
    expect(result).toMatchObject({ success: true, value: { status: 200, body: [{ name: 'Rex' }, { name: 'Tom' }] } });
    expect(JSON.parse(result.message)).toHaveLength(2);
    const request = api.seen.at(-1)!;
    expect(request.url).toBe('/v1/pets?limit=5&tags=dog&tags=cat');
    expect(request.headers).toMatchObject({ 'x-request-id': 'req-1', 'x-api-key': API_KEY });
  });

  it('puts path parameters into the path, percent-encoded', async () => {
    expect(await call(tools, 'showPetById', { petId: '1' })).toMatchObject({ success: true, value: { body: { id: 1, name: 'Rex' } } });
    await call(tools, 'showPetById', { petId: 'a/b?c' });
    expect(api.seen.at(-1)!.url).toBe('/v1/pets/a%2Fb%3Fc');
  });

  it('refuses a path parameter that would move the request elsewhere', async () => {
    const before = api.seen.length;
    const result = await call(tools, 'showPetById', { petId: '..' });
    expect(result).toMatchObject({ success: false, error: { type: 'validation_error' } });
    expect(api.seen.length).toBe(before);
  });

  it('sends the request body as JSON', async () => {
    const result = await call(tools, 'createPet', { body: { name: 'Kitty', tag: null } });
    expect(result).toMatchObject({ success: true, value: { status: 201, body: { id: 3, name: 'Kitty', tag: null } } });
    expect(api.seen.at(-1)).toMatchObject({ method: 'POST', body: '{"name":"Kitty","tag":null}', headers: { 'content-type': 'application/json' } });
  });

  it('validates arguments against the merged schema before anything is sent', async () => {
    const before = api.seen.length;
    const result = await call(tools, 'createPet', { body: { name: '', age: 0 } });
    expect(result).toMatchObject({ success: false, error: { type: 'validation_error' } });
    expect(result.message).toContain('body.name');
    expect(await call(tools, 'listPets', { limit: 500 })).toMatchObject({ success: false, error: { type: 'validation_error' } });
    expect(api.seen.length).toBe(before);
  });

  it('turns 4xx and 5xx into tool errors the model can act on', async () => {
    const invalid = await call(tools, 'createPet', { body: { name: 'invalid' } });
    expect(invalid).toMatchObject({ success: false, error: { type: 'execution_error' }, value: { status: 422 } });
    expect(invalid.message).toBe(
      'POST /pets answered HTTP 422 Unprocessable Entity: {"code":422,"message":"name \\"invalid\\" is reserved; choose another name"}. Fix the arguments as the message says and call again.',
    );
    const missing = await call(tools, 'showPetById', { petId: '99' });
    expect(missing.message).toContain('HTTP 404 Not Found: {"code":404,"message":"no pet with id 99"}. Nothing was found there');
    const failed = await call(tools, 'get_status', { fail: '500' });
    expect(failed.message).toBe('GET /status answered HTTP 500 Internal Server Error: database unavailable. The API failed on its side; try again once, or answer without it.');
    const limited = await call(tools, 'get_status', { fail: '429' });
    expect(limited).toMatchObject({ success: false, error: { type: 'rate_limited' } });
    expect(limited.message).toContain('try again after 7 s');
  });

  it('answers 401 as permission_denied when the key is wrong', async () => {
    const wrong = await petsTools({ auth: { type: 'header', name: 'x-api-key', value: 'wrong-key' } });
    const result = await call(wrong, 'listPets');
    expect(result).toMatchObject({ success: false, error: { type: 'permission_denied' } });
    expect(result.message).toContain('missing or wrong x-api-key');
  });

  it('answers a 204 without content', async () => {
    expect(await call(tools, 'deletePet', { petId: '2' })).toMatchObject({ success: true, message: 'Done (HTTP 204, no content).' });
  });

  it('caps the response size and times out a slow API', async () => {
    const big = await call(tools, 'get_status', { fail: 'big' });
    expect(big).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(big.message).toContain('larger than 1048576 bytes');
    const slow = await call(tools, 'get_status', { fail: 'slow' });
    expect(slow).toMatchObject({ success: false, error: { type: 'timeout' } });
  });

  it('never shows the credentials to the model, even when the API echoes them', async () => {
    const echoed = await call(tools, 'get_status', { fail: 'echo' });
    expect(echoed.message).not.toContain(API_KEY);
    expect(echoed.message).toContain('[redacted]');
    const inQuery = await petsTools({ auth: { type: 'query', name: 'api_key', value: API_KEY }, allowedDomains: ['api.example.com'] });
    const refused = await call(inQuery, 'listPets');
    expect(refused).toMatchObject({ success: false, error: { type: 'permission_denied' } });
    expect(refused.message).toContain('not on the allow-list');
    expect(refused.message).not.toContain(API_KEY);
  });

  it('reaches only the allow-list: by default the hosts of the servers and baseURL', async () => {
    const strict = await petsTools({ allowPrivateNetwork: false });
    const result = await call(strict, 'listPets');
    expect(result).toMatchObject({ success: false, error: { type: 'permission_denied' } });
    expect(result.message).toContain('loopback');
  });

  it('keeps only the operations asked for, and names the ones it does not know', async () => {
    expect((await petsTools({ operations: ['showPetById', 'get_status'] })).map((tool) => tool.name)).toEqual(['showPetById', 'get_status']);
    expect((await petsTools({ operations: (operation) => operation.method === 'GET' })).map((tool) => tool.name)).toEqual([
      'listPets',
      'showPetById',
      'get_status',
    ]);
    await expect(petsTools({ operations: ['adoptPet'] })).rejects.toThrow(/no operation "adoptPet"; it has listPets, createPet/);
  });

  it('works in the core tool loop', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'showPetById', arguments: { petId: '1' } }] }, { text: 'Pet 1 is Rex.' }]);
    const result = await runTools({ model, tools, messages: [{ role: 'user', content: 'Who is pet 1?' }] });
    expect(result.text).toBe('Pet 1 is Rex.');
    expect(result.steps[0]?.toolResults[0]).toMatchObject({ success: true, value: { body: { name: 'Rex' } } });
  });
});

describe('openApiTools with an OpenAPI 3.1 document with cycles', () => {
  it('keeps cyclic schemas as $defs, validates nested values and sends them', async () => {
    const tools = await openApiTools(join(fixtures, 'tree.openapi.json'), { baseURL: `${api.origin}/trees`, allowPrivateNetwork: true });
    const count = tools[0]!;
    expect(count.name).toBe('countNodes');
    expect(count.inputSchema).toMatchObject({
      properties: { body: { $ref: '#/$defs/TreeNode' } },
      $defs: {
        TreeNode: { properties: { children: { items: { $ref: '#/$defs/TreeNode' } }, parent: { $ref: '#/$defs/Ref' } } },
        Ref: { properties: { node: { $ref: '#/$defs/TreeNode' } } },
      },
    });
    expect(() => JSON.stringify(count.inputSchema)).not.toThrow();
    const tree = { value: 'root', children: [{ value: 'a', children: [{ value: null }] }, { value: 'b' }] };
    expect(await call(tools, 'countNodes', { body: tree })).toMatchObject({ success: true, value: { body: { count: 4 } } });
    const bad = await call(tools, 'countNodes', { body: { value: 'root', children: [{ children: [] }] } });
    expect(bad).toMatchObject({ success: false, error: { type: 'validation_error' } });
  });
});

describe('openApiTools refuses what it cannot use', () => {
  it('refuses Swagger 2.0 documents with UnsupportedFeatureError', async () => {
    const error: unknown = await openApiTools({ swagger: '2.0', info: { title: 'old', version: '1' }, paths: {} }).catch((e: unknown) => e);
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('Convert the document to OpenAPI 3');
  });

  it('refuses an invalid document with OpenApiDocumentError', async () => {
    await expect(openApiTools({ openapi: '3.0.3', info: { title: 'no version' }, paths: {} })).rejects.toSatisfy((error) => OpenApiDocumentError.isInstance(error));
  });

  it('asks for baseURL when the document has no absolute server', async () => {
    await expect(openApiTools({ openapi: '3.1.0', info: { title: 't', version: '1' }, servers: [{ url: '/api' }], paths: {} })).rejects.toThrow(/pass `baseURL`/);
  });
});
