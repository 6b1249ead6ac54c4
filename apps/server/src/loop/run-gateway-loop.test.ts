import { collectStream, defineTool, ToolRegistry } from '@toolwire/core';
import type { ChatStreamEvent, ToolCallAudit } from '@toolwire/core';
import { nextThen } from '@toolwire/core/provider';
import { createScriptedModel } from '@toolwire/core/testing';
import { describe, expect, it } from 'vitest';
import type { HiddenToolTurn } from '../hidden-tool-turns.ts';
import { runGatewayLoop, runGatewayLoopOnce } from './run-gateway-loop.ts';

const add = defineTool({
  name: 'add',
  description: 'adds',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  execute: (args) => Promise.resolve({ sum: Number(args.a) + Number(args.b) }),
});

function setup(
  steps: Parameters<typeof createScriptedModel>[0],
  options: { stream?: boolean; maxSteps?: number; clientTools?: string[]; onHiddenTurn?: (turn: HiddenToolTurn) => void | PromiseLike<void> } = {},
) {
  const model = createScriptedModel(steps);
  const audit: ToolCallAudit[] = [];
  const clientTools = (options.clientTools ?? []).map((name) => ({ type: 'function' as const, name, inputSchema: { type: 'object' as const } }));
  const events = runGatewayLoop({
    model,
    request: { messages: [{ role: 'user', content: 'what is 1+2?' }], tools: [add, ...clientTools] },
    clientTools: new Set(options.clientTools ?? []),
    registry: new ToolRegistry({ tools: [add] }),
    onToolAudit: (e) => audit.push(e),
    principal: 'key-1',
    signal: new AbortController().signal,
    stream: options.stream ?? true,
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.onHiddenTurn === undefined ? {} : { onHiddenTurn: options.onHiddenTurn }),
  });
  return { model, audit, events };
}

/** `runGatewayLoopOnce`'s options for a turn offering the server's `add` and the client's `lookup`. */
function onceOptions(model: ReturnType<typeof createScriptedModel>, onHiddenTurn: (turn: HiddenToolTurn) => void | PromiseLike<void>, stream = false) {
  return {
    model,
    request: { messages: [{ role: 'user' as const, content: 'what is 1+2?' }], tools: [add, { type: 'function' as const, name: 'lookup', inputSchema: { type: 'object' as const } }] },
    clientTools: new Set(['lookup']),
    registry: new ToolRegistry({ tools: [add] }),
    principal: 'key-1',
    signal: new AbortController().signal,
    stream,
    onHiddenTurn,
  };
}

/** Reads through `nextThen` (the loop's `NEXT_THEN`), as the SSE loop does. */
function allChained(events: AsyncGenerator<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  return new Promise((resolve, reject) => {
    const read = (): void => {
      void nextThen(
        events,
        (next) => {
          if (next.done === true) resolve(out);
          else {
            out.push(next.value);
            read();
          }
        },
        reject,
      );
    };
    read();
  });
}

async function all(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('runGatewayLoop', () => {
  it('runs server tool calls, feeds the results back and returns only the final answer', async () => {
    const { model, audit, events } = setup([
      { toolCalls: [{ id: 'call_x', name: 'add', arguments: { a: 1, b: 2 } }], usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
      { text: 'It is 3.', usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23 } },
    ]);
    const emitted = await all(events);
    expect(emitted.some((e) => e.type.startsWith('tool-call'))).toBe(false);
    const response = await collectStream((async function* () { yield* emitted; })());
    expect(response.text).toBe('It is 3.');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({ inputTokens: 30, outputTokens: 8, totalTokens: 38 });
    const second = model.requests[1]?.messages ?? [];
    expect(second.at(-2)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_x', name: 'add' }] });
    expect(second.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_x', content: '{"sum":3}' });
    expect(audit).toEqual([expect.objectContaining({ toolName: 'add', principal: 'key-1', outcome: 'success', argumentNames: ['a', 'b'] })]);
  });

  it('returns calls to client tools with call_ ids and finish reason tool-calls', async () => {
    const { events } = setup([{ toolCalls: [{ id: 'weird-id', name: 'lookup', arguments: { q: 'x' } }] }], { clientTools: ['lookup'] });
    const response = await collectStream(events);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]?.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(response.toolCalls[0]).toMatchObject({ name: 'lookup', arguments: { q: 'x' } });
  });

  it('keeps call_ ids the provider already gave', async () => {
    const { events } = setup([{ toolCalls: [{ id: 'call_abc123', name: 'lookup' }] }], { clientTools: ['lookup'] });
    expect((await collectStream(events)).toolCalls[0]?.id).toBe('call_abc123');
  });

  it('runs the server calls of a turn that also calls client tools, returns the client calls, and hands over the hidden half', async () => {
    const hidden: HiddenToolTurn[] = [];
    const { audit, events } = setup([{ toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 1 } }, { id: 'c2', name: 'lookup' }] }], {
      onHiddenTurn: (turn) => void hidden.push(turn),
      clientTools: ['lookup'],
    });
    const response = await collectStream(events);
    expect(response.toolCalls.map((c) => c.name)).toEqual(['lookup']);
    expect(response.finishReason).toBe('tool-calls');
    expect(audit).toEqual([expect.objectContaining({ toolName: 'add', outcome: 'success' })]);
    const clientId = response.toolCalls[0]?.id ?? '';
    expect(hidden).toEqual([
      {
        clientCallIds: [clientId],
        toolCalls: [expect.objectContaining({ id: 'c1', name: 'add' }), expect.objectContaining({ id: clientId, name: 'lookup' })],
        results: [expect.objectContaining({ role: 'tool', toolCallId: 'c1', content: '{"sum":2}' })],
      },
    ]);
  });

  it('hands out the closing finish only once the hidden half is kept (a shared-state write the next request may need)', async () => {
    const mixed = () => [{ toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 1 } }, { id: 'c2', name: 'lookup' }] }];
    for (const stream of [true, false]) {
      const order: string[] = [];
      let keep = (): void => undefined;
      const { events } = setup(mixed(), {
        stream,
        clientTools: ['lookup'],
        onHiddenTurn: () =>
          new Promise<void>((resolve) => {
            order.push('write started');
            keep = () => {
              order.push('write done');
              resolve();
            };
          }),
      });
      const read = allChained(events).then((all) => {
        order.push(`finish ${String(all.at(-1)?.type)}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(order, `stream: ${String(stream)}`).toEqual(['write started']);
      keep();
      await read;
      expect(order, `stream: ${String(stream)}`).toEqual(['write started', 'write done', 'finish finish']);
    }
    const order: string[] = [];
    const once = runGatewayLoopOnce(
      onceOptions(
        createScriptedModel(mixed()),
        () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              order.push('write done');
              resolve();
            }, 20),
          ),
      ),
    ).then((events) => order.push(`answer ${String(events.at(-1)?.type)}`));
    await once;
    expect(order).toEqual(['write done', 'answer finish']);
  });

  it('keeps every call the loop answered itself in the hidden half, so the restored turn has an answer for each call', async () => {
    const hidden: HiddenToolTurn[] = [];
    const { events } = setup([{ toolCalls: [{ id: 'c1', name: 'made_up' }, { id: 'c2', name: 'lookup' }] }], {
      onHiddenTurn: (turn) => void hidden.push(turn),
      clientTools: ['lookup'],
    });
    const response = await collectStream(events);
    expect(response.toolCalls.map((c) => c.name)).toEqual(['lookup']);
    expect(hidden[0]?.toolCalls.map((c) => c.name)).toEqual(['made_up', 'lookup']);
    expect(hidden[0]?.results).toEqual([expect.objectContaining({ toolCallId: 'c1', result: expect.objectContaining({ error: expect.objectContaining({ type: 'unknown_tool' }) }) })]);
  });

  it('answers a call to a tool nobody offered inside the loop instead of passing it to the client', async () => {
    const { model, events } = setup([{ toolCalls: [{ id: 'c1', name: 'made_up' }] }, { text: 'Sorry.' }], { clientTools: ['lookup'] });
    const response = await collectStream(events);
    expect(response.toolCalls).toEqual([]);
    expect(response.text).toBe('Sorry.');
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', result: { error: { type: 'unknown_tool' } } });
  });

  it('sends a client call with unreadable arguments back to the model, never to the client, without streaming', async () => {
    const { model, events } = setup(
      [
        { toolCalls: [{ id: 'c1', name: 'lookup', invalid: { message: 'not JSON', rawArguments: '{"q": "x' } }] },
        { toolCalls: [{ id: 'call_ok', name: 'lookup', arguments: { q: 'x' } }] },
      ],
      { clientTools: ['lookup'], stream: false },
    );
    const response = await collectStream(events);
    expect(response.toolCalls).toEqual([expect.objectContaining({ id: 'call_ok', arguments: { q: 'x' } })]);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', result: { error: { type: 'validation_error' } } });
  });

  it('leaves a streamed client call that turns out unreadable to the client as written, and ends its turn there', async () => {
    const { model, events } = setup(
      [
        { toolCalls: [{ id: 'c1', name: 'lookup', invalid: { message: 'cut off', rawArguments: '{"q": "x' } }], finishReason: 'length' },
        { text: 'never asked' },
      ],
      { clientTools: ['lookup'] },
    );
    const emitted = await all(events);
    const deltas = emitted.filter((e) => e.type === 'tool-call-delta').map((e) => e.argumentsDelta);
    expect(deltas.join('')).toBe('{"q": "x');
    expect(emitted.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
    expect(model.requests).toHaveLength(1);
  });

  it('answers a server call with unreadable arguments with a validation error, without running the tool', async () => {
    const { model, audit, events } = setup([
      { toolCalls: [{ id: 'c1', name: 'add', invalid: { message: 'Unexpected end of JSON', rawArguments: '{"a": 1' } }] },
      { text: 'Let me fix that.' },
    ]);
    expect((await collectStream(events)).text).toBe('Let me fix that.');
    expect(audit).toEqual([expect.objectContaining({ toolName: 'add', outcome: 'validation_error', durationMs: 0 })]);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', result: { success: false, error: { type: 'validation_error' } } });
  });

  it('stops at maxSteps with the text so far', async () => {
    const { model, events } = setup(
      [
        { text: 'Working.', toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
        { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
      ],
      { maxSteps: 2 },
    );
    const response = await collectStream(events);
    expect(model.requests).toHaveLength(2);
    expect(response.toolCalls).toEqual([]);
    expect(response.finishReason).toBe('stop');
  });

  it('separates the text of consecutive steps', async () => {
    const { events } = setup([{ text: 'Let me add.', toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'It is 3.' }]);
    expect((await collectStream(events)).text).toBe('Let me add.\n\nIt is 3.');
  });

  it('works the same with generate (non-streaming)', async () => {
    const { model, events } = setup([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'It is 3.' }], { stream: false });
    expect((await collectStream(events)).text).toBe('It is 3.');
    expect(model.calls.map((c) => c.method)).toEqual(['generate', 'generate']);
  });

  it('gives a non-streamed run as one array of the events the stream of it hands out, the hidden half told first', async () => {
    const steps = (): Parameters<typeof createScriptedModel>[0] => [
      { text: 'Adding.', toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1, b: 2 } }] },
      { text: 'Now the lookup.', toolCalls: [{ id: 'c2', name: 'add', arguments: { a: 3, b: 4 } }, { id: 'c3', name: 'lookup', arguments: { q: 'x' } }] },
    ];
    const streamedHidden: HiddenToolTurn[] = [];
    const streamed = await all(setup(steps(), { stream: false, clientTools: ['lookup'], onHiddenTurn: (turn) => void streamedHidden.push(turn) }).events);
    const told: string[] = [];
    const model = createScriptedModel(steps());
    const once = await runGatewayLoopOnce(
      onceOptions(
        model,
        (turn) => {
          told.push(turn.clientCallIds.join());
        },
        true,
      ),
    );
    expect(model.calls.map((c) => c.method)).toEqual(['generate', 'generate']);
    // Client call ids are made per run: compared by shape.
    const shape = (events: ChatStreamEvent[]) => events.map((e) => (e.type === 'tool-call' ? { ...e, toolCall: { ...e.toolCall, id: e.toolCall.id.startsWith('call_') } } : e));
    expect(shape(once)).toEqual(shape(streamed));
    expect(once.at(-1)).toEqual(expect.objectContaining({ type: 'finish', finishReason: 'tool-calls' }));
    expect(once.map((e) => e.type)).toEqual(['text-delta', 'text-delta', 'tool-call', 'finish']);
    expect(told).toHaveLength(1);
    expect(streamedHidden).toHaveLength(1);
  });

  it('rejects a non-streamed run the caller aborted with the abort reason, with no model call', async () => {
    const controller = new AbortController();
    controller.abort(new Error('The client disconnected.'));
    const model = createScriptedModel([{ text: 'never' }]);
    const run = runGatewayLoopOnce({ model, request: { messages: [{ role: 'user', content: 'hi' }] }, clientTools: new Set(), registry: new ToolRegistry({ tools: [] }), principal: 'key-1', signal: controller.signal, stream: false });
    await expect(run).rejects.toThrow('The client disconnected.');
    expect(model.calls).toHaveLength(0);
  });

  it('relaxes a forced tool choice after the forced call ran, so the model can answer', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'done' }]);
    const events = runGatewayLoop({
      model,
      request: { messages: [{ role: 'user', content: 'x' }], tools: [add], toolChoice: { type: 'tool', name: 'add' } },
      clientTools: new Set(),
      registry: new ToolRegistry({ tools: [add] }),
      principal: 'p',
      signal: new AbortController().signal,
      stream: true,
    });
    await collectStream(events);
    expect(model.requests[0]?.toolChoice).toEqual({ type: 'tool', name: 'add' });
    expect(model.requests[1]?.toolChoice).toBe('auto');
  });

  it('passes an upstream error event through and stops', async () => {
    const { events } = setup([{ events: [{ type: 'text-delta', delta: 'par' }, { type: 'error', error: new Error('upstream broke') }] }]);
    const emitted = await all(events);
    expect(emitted.at(-1)).toMatchObject({ type: 'error' });
    expect(emitted.some((e) => e.type === 'finish')).toBe(false);
  });

  it('reports a failing server tool to the model as an error result instead of failing the request', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'boom' }] }, { text: 'Sorry.' }]);
    const boom = defineTool({ name: 'boom', parameters: { type: 'object' }, execute: () => Promise.reject(new Error('no network')) });
    const events = runGatewayLoop({
      model,
      request: { messages: [{ role: 'user', content: 'x' }], tools: [boom] },
      clientTools: new Set(),
      registry: new ToolRegistry({ tools: [boom] }),
      principal: 'p',
      signal: new AbortController().signal,
      stream: true,
    });
    expect((await collectStream(events)).text).toBe('Sorry.');
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Tool "boom" failed: no network', result: { success: false, error: { type: 'execution_error' } } });
  });

  it('stops the run when the consumer leaves early, and starts nothing before the first next()', async () => {
    const { model, events } = setup([{ text: 'Adding.', toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'Three.' }]);
    expect(model.requests).toHaveLength(0);
    const first = await events.next();
    expect(first.done).toBe(false);
    await events.return(undefined);
    await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
    // The run's signal (what the model call and the tools see) is aborted.
    expect(model.requests[0]?.signal?.aborted).toBe(true);
  });

  it('rejects next() when the run fails before any event (the caller answers with an HTTP error)', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client left'));
    const events = runGatewayLoop({
      model: createScriptedModel([{ text: 'never' }]),
      request: { messages: [{ role: 'user', content: 'x' }] },
      clientTools: new Set(),
      registry: new ToolRegistry({ tools: [] }),
      principal: 'p',
      signal: controller.signal,
      stream: true,
    });
    await expect(events.next()).rejects.toThrow('client left');
    await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it('hands the same events through NEXT_THEN as through next(): tool rounds, client calls, the closing finish', async () => {
    const steps: Parameters<typeof createScriptedModel>[0] = [
      { toolCalls: [{ id: 'call_x', name: 'add', arguments: { a: 1, b: 2 } }], usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
      { text: 'Three, and ', toolCalls: [{ id: 'call_y', name: 'lookup', arguments: { q: 'x' } }], usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23 } },
    ];
    const plain = await all(setup(steps, { clientTools: ['lookup'] }).events);
    const chained = await allChained(setup(steps, { clientTools: ['lookup'] }).events);
    expect(chained).toEqual(plain);
    expect(chained.at(-1)).toMatchObject({ type: 'finish' });
    expect(chained.some((e) => e.type === 'tool-call')).toBe(true);
  });

  it('rejects through NEXT_THEN when the model fails before any event, as next() does', async () => {
    const { events } = setup([]);
    await expect(allChained(events)).rejects.toThrow();
    await expect(all(setup([]).events)).rejects.toThrow();
  });

  it('lets go of its options once the run started (a stream keeps only what the run needs, and the hidden-turn callback)', async () => {
    const turns: HiddenToolTurn[] = [];
    let options: WeakRef<object> | undefined;
    const model = createScriptedModel([{ text: 'Adding.', toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }, { name: 'lookup', arguments: {} }] }]);
    const events = (() => {
      const made = onceOptions(model, (turn) => void turns.push(turn), true);
      options = new WeakRef(made);
      return runGatewayLoop(made);
    })();
    const first = await events.next();
    expect(first).toMatchObject({ done: false, value: { type: 'text-delta' } });
    for (let i = 0; i < 5 && options?.deref() !== undefined; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      (globalThis as { gc?: () => void }).gc?.();
    }
    expect(options?.deref()).toBeUndefined();
    // The rest of the turn as before: the client's call, and the hidden half handed over.
    const rest = await all(events);
    expect(rest.filter((event) => event.type === 'tool-call' || event.type === 'finish').map((event) => event.type)).toEqual(['tool-call', 'finish']);
    expect(turns).toHaveLength(1);
  });
});
