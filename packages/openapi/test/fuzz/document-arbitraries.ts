// Fuzzed OpenAPI documents: the fixtures (3.0 and 3.1), with structure-aware changes
// (parameters in odd places and styles, schemas with odd keywords, colliding names, `$ref`s
// to missing or odd places) and blind ones (a wrong type at any path, a field dropped).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';

type Json = Record<string, unknown>;

function fixture(name: string): Json {
  return JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as Json;
}

const PETS = fixture('pets.openapi.json');
const TREE = fixture('tree.openapi.json');
/** The pets document as 3.1 (its `nullable` is just an unknown keyword there). */
const PETS_31 = { ...structuredClone(PETS), openapi: '3.1.0' };

/** Values no field should hold. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, '', 'x', '__proto__', 'constructor', '\u0000', '\ud800', 'a'.repeat(3000), [], {}, [null], { $ref: '#' }, { $ref: '#/nowhere' }, { type: 'object' }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') as unknown),
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 }),
);

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'body', 'requestBody', 'petId', 'PetId', 'PETID', 'limit', 'x-api-key', 'X-API-KEY', 'authorization', 'cookie', 'content-type', 'a b', 'a/b', '{petId}', '', 'é', 'query_limit', '$ref', '\ud800'];
const LOCATIONS = ['path', 'query', 'header', 'cookie', 'body', 'formData', 'PATH', '', 'nowhere'];
const STYLES = [undefined, 'form', 'simple', 'label', 'matrix', 'spaceDelimited', 'pipeDelimited', 'deepObject', 'weird', 5];
const SCHEMAS: unknown[] = [
  { type: 'string' },
  { type: 'integer', minimum: 1 },
  { type: 'number', exclusiveMinimum: true, minimum: 0 },
  { type: 'boolean' },
  { type: 'array', items: { type: 'string' } },
  { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
  { type: 'object', properties: { a: { type: 'integer' }, __proto__x: { type: 'string' } }, additionalProperties: { type: 'string' } },
  { type: ['string', 'null'] },
  { type: 'string', nullable: true, enum: ['a', 'b'] },
  { type: 'string', pattern: '^(a+)+$' },
  { type: 'string', pattern: '[' },
  { type: 'string', format: 'no-such-format' },
  { type: 'weird' },
  { type: ['string', 'weird'] },
  { enum: [] },
  { const: { a: 1 } },
  { oneOf: [] },
  { anyOf: [{ type: 'string' }, { type: 'integer' }] },
  { allOf: [{ $ref: '#/components/schemas/NewPet' }] },
  { not: {} },
  { items: false },
  { minimum: 'x' },
  { $ref: '#/components/schemas/Missing' },
  { $ref: '#' },
  { $ref: '#/paths' },
  { $ref: '#/components/schemas/NewPet/properties/name' },
  { $ref: 'http://127.0.0.1:1/x.json' },
  { $ref: 'other.json#/x' },
  { $ref: '#/components/schemas/~1weird' },
  { $ref: '#/components/schemas/%7Bbad' },
  { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
  {},
  true,
  false,
];
const MEDIA_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data', '*/*', 'image/png', 'APPLICATION/JSON', ''];
const OPERATION_IDS = ['__proto__', 'constructor', 'toString', 'listPets', 'ListPets', 'LISTPETS', 'list pets', '', 'x'.repeat(100), 'showPetById', 'a.b', 'é'];

type Change =
  | { op: 'parameter'; at: number; name: string; in: string; style: unknown; explode: unknown; schema: unknown; required: unknown; content: boolean }
  | { op: 'operationId'; at: number; id: string }
  | { op: 'schema'; name: string; schema: unknown; refFrom: number }
  | { op: 'body'; at: number; media: string; schema: unknown; required: unknown }
  | { op: 'path'; path: string; method: string }
  | { op: 'server'; url: unknown; variables: unknown }
  | { op: 'blind'; at: number; kind: 'replace' | 'delete'; value: unknown };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    op: fc.constant('parameter' as const),
    at: fc.nat(),
    name: fc.constantFrom(...NAMES),
    in: fc.constantFrom(...LOCATIONS),
    style: fc.constantFrom(...STYLES),
    explode: fc.constantFrom(undefined, true, false, 'yes'),
    schema: fc.constantFrom(...SCHEMAS),
    required: fc.constantFrom(undefined, true, false, 'true'),
    content: fc.boolean(),
  }),
  fc.record({ op: fc.constant('operationId' as const), at: fc.nat(), id: fc.constantFrom(...OPERATION_IDS) }),
  fc.record({ op: fc.constant('schema' as const), name: fc.constantFrom('__proto__', 'constructor', 'Pet', 'pet', 'NewPet', 'Missing', 'a/b', '~1weird'), schema: fc.constantFrom(...SCHEMAS), refFrom: fc.nat() }),
  fc.record({ op: fc.constant('body' as const), at: fc.nat(), media: fc.constantFrom(...MEDIA_TYPES), schema: fc.constantFrom(...SCHEMAS), required: fc.constantFrom(undefined, true, false) }),
  fc.record({ op: fc.constant('path' as const), path: fc.constantFrom('/__proto__', '/constructor', '/pets/{petId}', '/Pets', '/a/{b}/{b}', '/{x}', '/no-slash', 'no-slash', '/a?b=c', '/a#f', '/../x'), method: fc.constantFrom('get', 'post', 'trace', 'head', 'options') }),
  fc.record({
    op: fc.constant('server' as const),
    url: fc.constantFrom('http://127.0.0.1:{port}/v1', '/relative', 'ftp://x', 'http://user:pw@127.0.0.1/', 'http://127.0.0.1/?q=1', '{scheme}://{host}', 'http://[::1', '', 5, null),
    variables: fc.constantFrom(undefined, null, {}, { port: null }, { port: { default: 80 } }, { port: { default: { a: 1 } } }, { port: { enum: [] } }, { scheme: { default: 'javascript' }, host: { default: 'x' } }, { __proto__x: 1 }, 'x', []),
  }),
  fc.record({ op: fc.constant('blind' as const), at: fc.nat(), kind: fc.constantFrom('replace' as const, 'delete' as const), value: oddValue }),
);

function setOwn(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function operations(document: Json): Json[] {
  const out: Json[] = [];
  const paths = document.paths;
  if (typeof paths !== 'object' || paths === null) return out;
  for (const item of Object.values(paths as Json)) {
    if (typeof item !== 'object' || item === null) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']) {
      const operation = (item as Json)[method];
      if (typeof operation === 'object' && operation !== null && !Array.isArray(operation)) out.push(operation as Json);
    }
  }
  return out;
}

type Path = (string | number)[];

function allPaths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item: unknown, i) => allPaths(item, [...at, i], out));
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) allPaths(item, [...at, key], out);
  return out;
}

function apply(document: Json, c: Change): void {
  const ops = operations(document);
  const pick = (at: number) => ops[at % Math.max(1, ops.length)];
  switch (c.op) {
    case 'parameter': {
      const operation = pick(c.at);
      if (operation === undefined) return;
      const parameter: Json = { name: c.name, in: c.in };
      if (c.style !== undefined) parameter.style = c.style;
      if (c.explode !== undefined) parameter.explode = c.explode;
      if (c.required !== undefined) parameter.required = c.required;
      if (c.content) parameter.content = { 'application/json': { schema: c.schema } };
      else parameter.schema = c.schema;
      operation.parameters = [...(Array.isArray(operation.parameters) ? operation.parameters : []), parameter];
      return;
    }
    case 'operationId': {
      const operation = pick(c.at);
      if (operation !== undefined) operation.operationId = c.id;
      return;
    }
    case 'schema': {
      const components = (document.components ??= {}) as Json;
      const schemas = (components.schemas ??= {}) as Json;
      setOwn(schemas, c.name, c.schema);
      const operation = pick(c.refFrom);
      if (operation !== undefined) {
        const ref = `#/components/schemas/${c.name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        operation.requestBody = { content: { 'application/json': { schema: { type: 'object', properties: { item: { $ref: ref } } } } } };
      }
      return;
    }
    case 'body': {
      const operation = pick(c.at);
      if (operation !== undefined) {
        operation.requestBody = { content: { [c.media]: { schema: c.schema } }, ...(c.required === undefined ? {} : { required: c.required }) };
      }
      return;
    }
    case 'path': {
      const paths = (typeof document.paths === 'object' && document.paths !== null ? document.paths : (document.paths = {})) as Json;
      const item = (Object.hasOwn(paths, c.path) ? paths[c.path] : {}) as Json;
      setOwn(item, c.method, { ...(c.path.includes('proto') ? { operationId: '__proto__' } : {}), responses: { 200: { description: 'ok' } } });
      setOwn(paths, c.path, item);
      return;
    }
    case 'server': {
      const server: Json = { url: c.url };
      if (c.variables !== undefined) server.variables = c.variables;
      document.servers = [server, ...(Array.isArray(document.servers) ? document.servers : [])];
      return;
    }
    case 'blind': {
      const all = allPaths(document);
      const path = all[c.at % all.length] as Path;
      if (path.length === 0) return;
      const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], document) as Record<string | number, unknown>;
      const key = path[path.length - 1] as string | number;
      if (c.kind === 'delete') {
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else Reflect.deleteProperty(parent, key);
      } else if (Array.isArray(parent)) parent[key as number] = c.value;
      else setOwn(parent, key as string, c.value);
      return;
    }
    default: {
      const unknown: never = c;
      throw new Error(String(unknown));
    }
  }
}

/** A document: a fixture with a few changes (`blind` ones only when `blind`). */
export function fuzzedDocument(options: { blind: boolean; maxChanges: number }): fc.Arbitrary<Json> {
  const changes = options.blind ? change : change.filter((c) => c.op !== 'blind');
  return fc.tuple(fc.constantFrom(PETS, PETS_31, TREE), fc.array(changes, { maxLength: options.maxChanges })).map(([base, list]) => {
    const document = structuredClone(base);
    // Values are fast-check's constants, shared between runs: each use gets its own copy.
    for (const c of list) apply(document, structuredClone(c));
    return document;
  });
}
