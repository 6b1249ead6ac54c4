import { InvalidRequestError } from '@toolwire/core';
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { ContainerExpiredError } from '../errors.ts';
import { toContainerExpiredError } from './expired-container.ts';

function apiError(status: number, message: string): APIError {
  const body = { message, type: 'invalid_request_error', param: null, code: null };
  return APIError.generate(status, { error: body }, undefined, new Headers());
}

describe('toContainerExpiredError', () => {
  it('recognises the measured 400 "Container is expired." from the openai SDK', () => {
    const error = toContainerExpiredError(apiError(400, 'Container is expired.'), 'cntr_abc');
    expect(error).toBeInstanceOf(ContainerExpiredError);
    expect(ContainerExpiredError.isInstance(error)).toBe(true);
    expect(error?.containerId).toBe('cntr_abc');
    expect(error?.status).toBe(400);
    expect(error?.message).toContain('Container cntr_abc has expired');
    expect(error?.message).toContain('OpenAI: "Container is expired."');
    expect(error?.message).toContain('containers.create');
  });

  it('recognises the 404 "Container has expired." variant and "not running"', () => {
    expect(toContainerExpiredError(apiError(404, 'Container has expired.'))?.status).toBe(404);
    expect(toContainerExpiredError(apiError(400, 'Container is not running.'))).toBeDefined();
  });

  it('takes the container id from a replay error message', () => {
    const error = toContainerExpiredError(apiError(400, 'Expected container_id: cntr_68cdc387531c81938b4bee78c36acb82, got something else'));
    expect(error?.containerId).toBe('cntr_68cdc387531c81938b4bee78c36acb82');
  });

  it('recognises a Toolwire ProviderError carrying the same answer', () => {
    const error = new InvalidRequestError({ provider: 'openai', status: 400, message: 'Container is expired.' });
    expect(toContainerExpiredError(error)?.cause).toBe(error);
  });

  it('leaves other errors alone', () => {
    expect(toContainerExpiredError(apiError(400, 'Invalid value for tool_choice'))).toBeUndefined();
    expect(toContainerExpiredError(apiError(500, 'Container is expired.'))).toBeUndefined();
    expect(toContainerExpiredError(new Error('Container is expired.'))).toBeUndefined();
    expect(toContainerExpiredError('Container is expired.')).toBeUndefined();
  });
});
