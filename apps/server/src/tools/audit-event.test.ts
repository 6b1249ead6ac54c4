import { describe, expect, it } from 'vitest';
import { toToolAuditEvent } from './audit-event.ts';

const base = { toolCallId: 'call_1', toolName: 'calculate', argumentNames: ['expression'], queuedMs: 1, durationMs: 2 };

describe('toToolAuditEvent', () => {
  it('keeps success and aborted as they are, with the request id', () => {
    expect(toToolAuditEvent({ ...base, outcome: 'success' }, { principal: 'team-a', requestId: 'req_1' })).toEqual({
      type: 'tool-execution',
      tool: 'calculate',
      toolCallId: 'call_1',
      principal: 'team-a',
      requestId: 'req_1',
      outcome: 'success',
      durationMs: 2,
      argumentNames: ['expression'],
      queuedMs: 1,
    });
    expect(toToolAuditEvent({ ...base, outcome: 'aborted' }, { principal: 'p' }).outcome).toBe('aborted');
  });

  it('reports refusals and failures as errors with their type, and timeouts as timeouts', () => {
    expect(toToolAuditEvent({ ...base, outcome: 'validation_error', error: 'Invalid arguments' }, { principal: 'p' })).toMatchObject({
      outcome: 'error',
      errorType: 'validation_error',
      error: 'Invalid arguments',
    });
    expect(toToolAuditEvent({ ...base, outcome: 'timeout' }, { principal: 'p' })).toMatchObject({ outcome: 'timeout', errorType: 'timeout' });
  });
});
