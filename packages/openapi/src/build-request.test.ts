import { describe, expect, it } from 'vitest';
import { buildRequest, RequestArgumentError } from './build-request.ts';
import type { OperationPlan, ParameterPlan } from './operation-plan.ts';

const param = (property: string, location: ParameterPlan['in'], extra: Partial<ParameterPlan> = {}): ParameterPlan => ({
  property,
  name: property,
  in: location,
  style: location === 'query' || location === 'cookie' ? 'form' : 'simple',
  explode: location === 'query' || location === 'cookie',
  json: false,
  ...extra,
});

describe('buildRequest', () => {
  it('serializes query parameters by style and explode', () => {
    const plan: OperationPlan = {
      method: 'GET',
      path: '/items',
      parameters: [
        param('ids', 'query'),
        param('csv', 'query', { explode: false }),
        param('pipes', 'query', { style: 'pipeDelimited', explode: false }),
        param('filter', 'query', { style: 'deepObject', explode: true }),
        param('point', 'query'),
        param('skip', 'query'),
      ],
    };
    const request = buildRequest(plan, { ids: [1, 2], csv: ['a', 'b'], pipes: ['x', 'y'], filter: { color: 'red', size: 2 }, point: { x: 1, y: 2 } }, { baseURL: 'https://api.test/v1/' });
    expect(request.url).toBe('https://api.test/v1/items?ids=1&ids=2&csv=a%2Cb&pipes=x%7Cy&filter%5Bcolor%5D=red&filter%5Bsize%5D=2&x=1&y=2');
  });

  it('fills path templates with label and matrix styles', () => {
    const plan: OperationPlan = {
      method: 'GET',
      path: '/a/{id}/b{dot}/c{semi}',
      parameters: [param('id', 'path'), param('dot', 'path', { style: 'label' }), param('semi', 'path', { style: 'matrix' })],
    };
    expect(buildRequest(plan, { id: 'x y', dot: 5, semi: [1, 2] }, { baseURL: 'http://h' }).url).toBe('http://h/a/x%20y/b.5/c;semi=1%2C2');
  });

  it('refuses path values that change the path and header values with line breaks', () => {
    const plan: OperationPlan = { method: 'GET', path: '/a/{id}', parameters: [param('id', 'path'), param('x-note', 'header')] };
    expect(() => buildRequest(plan, { id: '..' }, { baseURL: 'http://h' })).toThrow(RequestArgumentError);
    expect(() => buildRequest(plan, { id: '' }, { baseURL: 'http://h' })).toThrow(RequestArgumentError);
    expect(() => buildRequest(plan, { id: 'ok', 'x-note': 'a\r\nset-cookie: x' }, { baseURL: 'http://h' })).toThrow(/line breaks/);
  });

  it('sends cookies, form bodies and credentials, credentials last', () => {
    const plan: OperationPlan = {
      method: 'POST',
      path: '/login',
      parameters: [param('session', 'cookie'), param('authorization', 'header')],
      body: { property: 'body', encoding: 'form', contentType: 'application/x-www-form-urlencoded' },
    };
    const request = buildRequest(plan, { session: 'a b', authorization: 'Bearer model-made', body: { user: 'ann', tags: ['x'] } }, {
      baseURL: 'http://h',
      auth: { type: 'basic', username: 'u', password: 'p' },
    });
    expect(request.headers).toMatchObject({ cookie: 'session=a%20b', authorization: 'Basic dTpw', 'content-type': 'application/x-www-form-urlencoded' });
    expect(request.body).toBe('user=ann&tags=%5B%22x%22%5D');
    const query = buildRequest({ method: 'GET', path: '/', parameters: [] }, {}, { baseURL: 'http://h', auth: { type: 'query', name: 'key', value: 'k 1' } });
    expect(query.url).toBe('http://h/?key=k+1');
  });

  it('reads only the arguments given: a left-out `constructor` or `toString` is not Object.prototype\'s', () => {
    const plan: OperationPlan = { method: 'GET', path: '/items', parameters: [param('constructor', 'query'), param('toString', 'header')], body: { property: 'valueOf', encoding: 'json', contentType: 'application/json' } };
    const request = buildRequest(plan, {}, { baseURL: 'https://api.test' });
    expect(request.url).toBe('https://api.test/items');
    expect(Object.keys(request.headers)).toEqual(['accept']);
    expect(request.body).toBeUndefined();
  });

  // Found by fuzzing: `encodeURIComponent` threw "URI malformed" (the model read `Tool "showPetById" failed: URI malformed`).
  it('refuses a lone surrogate in a path, query, cookie or form value with an argument error', () => {
    const plan: OperationPlan = {
      method: 'POST',
      path: '/pets/{petId}',
      parameters: [param('petId', 'path'), param('q', 'query'), param('c', 'cookie')],
      body: { property: 'body', encoding: 'form', contentType: 'application/x-www-form-urlencoded' },
    };
    const options = { baseURL: 'https://api.test' };
    for (const args of [{ petId: '\ud800' }, { petId: 'a', q: 'x\udc00' }, { petId: 'a', q: { '\ud800': 1 } }, { petId: 'a', c: '\ud800' }, { petId: 'a', body: { name: '\ud800' } }]) {
      expect(() => buildRequest(plan, args, options)).toThrow(RequestArgumentError);
      expect(() => buildRequest(plan, args, options)).toThrow(/not valid Unicode \(a lone surrogate/);
    }
    // A surrogate pair (an emoji) is text like any other.
    expect(buildRequest(plan, { petId: '😀', q: '😀' }, options).url).toBe('https://api.test/pets/%F0%9F%98%80?q=%F0%9F%98%80');
  });
});
