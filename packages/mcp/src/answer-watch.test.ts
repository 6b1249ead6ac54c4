import { describe, expect, it } from 'vitest';
import { AnswerWatch } from './answer-watch.ts';

function watch(id: unknown, ...chunks: string[]): AnswerWatch {
  const w = new AnswerWatch(id);
  for (const chunk of chunks) w.push(new TextEncoder().encode(chunk));
  return w;
}

describe('AnswerWatch', () => {
  it('sees the answer for its request, whatever the line ends and chunking', () => {
    const event = 'event: message\r\n: note\r\ndata: {"jsonrpc":"2.0",\r\ndata: "id":7,"result":{}}\r\n\r\n';
    for (let cut = 0; cut <= event.length; cut++) expect(watch(7, event.slice(0, cut), event.slice(cut)).answered).toBe(true);
    expect(watch(7, 'data: {"jsonrpc":"2.0","id":7,"result":{}}\r\r').answered).toBe(true);
  });

  it('ignores other requests, other event types and notifications', () => {
    expect(watch(7, 'data: {"jsonrpc":"2.0","id":8,"result":{}}\n\n').answered).toBe(false);
    expect(watch(7, 'event: other\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n').answered).toBe(false);
    expect(watch(7, 'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n').answered).toBe(false);
  });

  it('says what is wrong with an answer that is not valid', () => {
    const w = watch(7, 'data: {"jsonrpc":"2.0","id":7,"error":"boom"}\n\n');
    expect(w.answered).toBe(false);
    expect(w.problem).toContain('at error:');
  });

  it('counts an event id as resumable, and a last event without its blank line once ended', () => {
    expect(watch(7, 'id: 1\ndata: x\n\n').resumable).toBe(true);
    const unfinished = watch(7, 'data: {"jsonrpc":"2.0","id":7,"result":{}}\n');
    expect(unfinished.answered).toBe(false);
    unfinished.end();
    expect(unfinished.answered).toBe(true);
  });
});
