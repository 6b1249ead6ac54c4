import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../wire/gateway-error.ts';
import { createPendingBodies } from './pending-bodies.ts';

/** The parts of a Fastify request and reply that pending bodies read. */
function request(): FastifyRequest {
  return { headers: { 'content-length': '12' }, raw: new EventEmitter() } as unknown as FastifyRequest;
}
const reply = { header: () => reply } as unknown as FastifyReply;

const refused = (fn: () => void): unknown => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error;
  }
};

describe('pending bodies', () => {
  it("counts a key's bodies up to its cap, and a read body no longer counts", () => {
    const bodies = createPendingBodies(2);
    const [a, b, c] = [request(), request(), request()];
    bodies.admit(a, 'k', reply);
    bodies.admit(b, 'k', reply);
    const error = refused(() => bodies.admit(c, 'k', reply));
    expect(GatewayError.isInstance(error) && error.code).toBe('too_many_pending_requests');
    bodies.release(a);
    expect(refused(() => bodies.admit(c, 'k', reply))).toBeUndefined();
  });

  it('releases a request that closes before its body was read', () => {
    const bodies = createPendingBodies(1);
    const a = request();
    bodies.admit(a, 'k', reply);
    a.raw.emit('close');
    expect(refused(() => bodies.admit(request(), 'k', reply))).toBeUndefined();
  });

  it('leaves no listener on a request whose body was read (it stays open as long as its stream)', () => {
    const bodies = createPendingBodies(1);
    const a = request();
    bodies.admit(a, 'k', reply);
    expect(a.raw.listenerCount('close')).toBe(1);
    bodies.release(a);
    expect(a.raw.listenerCount('close')).toBe(0);
    // Released once only: its close later does not free another request's place.
    const b = request();
    bodies.admit(b, 'k', reply);
    a.raw.emit('close');
    expect(GatewayError.isInstance(refused(() => bodies.admit(request(), 'k', reply)))).toBe(true);
  });
});
