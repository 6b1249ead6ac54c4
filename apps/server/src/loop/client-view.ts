import { addUsage, generateId } from '@toolwire/core';
import type { ChatStreamEvent, FinishReason, RunToolsResult, Usage } from '@toolwire/core';

/** `call_` + [A-Za-z0-9_-]: the ids clients expect; anything else is replaced. */
function isClientCallId(id: string): boolean {
  if (id.length < 6 || id.length > 64 || !id.startsWith('call_')) return false;
  for (let i = 5; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) return false;
  }
  return true;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * A client call while its arguments stream in. `pending`: too little text yet to tell
 * whether it is JSON; `forwarding`: it starts like a JSON object (`{"` or `{}`), so its
 * argument text goes to the client as it arrives; `held`: it does not (`city="Paris"`,
 * `{'city': …}`), so its arguments go out once complete, as JSON.
 */
interface StreamingCall {
  mode: 'pending' | 'forwarding' | 'held';
  /** The argument text not sent to the client yet. */
  raw: string;
  /** How far `raw` was scanned, and the non-space characters seen (at most two). */
  scanned: number;
  seen: string;
}

/**
 * What the client sees of core's run events: the text of every step (steps set apart by a
 * blank line), reasoning and warnings; calls of the client's tools with `call_…` ids;
 * nothing of server calls or their results; one `finish` at the end.
 *
 * A client call streams as it arrives: its header at `tool-call-start` (the name tells
 * whose call it is), its argument deltas once the text starts like a JSON object, and its
 * `tool-call` closes it. Text that is not JSON (a text-tools provider's `city="Paris"`)
 * is held and the arguments go out as JSON at the `tool-call`. A call that streamed and
 * then turns out unreadable (cut off by the token limit, say) cannot be taken back: it
 * stays the client's with the text the model wrote, and the client's turn ends with that
 * step (`endsAfterStep`). Without streaming (`tool-call` events only) the loop answers
 * such calls itself and the client never sees them.
 */
export interface ClientView {
  /** The client's id for one of the model's call ids (kept when it is a `call_…` id). */
  clientId(id: string): string;
  /** Appends to `out` the events to pass on for one of core's. */
  map(event: ChatStreamEvent, out: ChatStreamEvent[]): void;
  /** Set when a streamed client call turned out unreadable: end the client's turn at this step's `finish`. */
  readonly endsAfterStep: boolean;
  /** The closing `finish` once the run ended. */
  finish(result: RunToolsResult): ChatStreamEvent;
  /** The closing `finish` when the turn ends at a step (`endsAfterStep`). */
  finishAtStep(): ChatStreamEvent;
}

/** Creates the view of one request; `clientTools` are the names of the client's own functions. */
export function createClientView(clientTools: ReadonlySet<string>): ClientView {
  return new StreamClientView(clientTools);
}

// A class, not a closure per method: one is held by every open stream for its whole length.
class StreamClientView implements ClientView {
  readonly #clientTools: ReadonlySet<string>;
  // Made at the first call: most streams have none.
  #ids: Map<string, string> | undefined;
  #streaming: Map<string, StreamingCall> | undefined;
  #textSoFar = false;
  #stepHasText = false;
  #usage: Usage | undefined;
  #endsAfterStep = false;
  #stepFinish: FinishReason = 'stop';

  constructor(clientTools: ReadonlySet<string>) {
    this.#clientTools = clientTools;
  }

  get endsAfterStep(): boolean {
    return this.#endsAfterStep;
  }

  clientId(id: string): string {
    let mapped = this.#ids?.get(id);
    if (mapped === undefined) {
      mapped = isClientCallId(id) ? id : generateId('call_');
      (this.#ids ??= new Map()).set(id, mapped);
    }
    return mapped;
  }

  /** Reads new argument text of a `pending` call; forwards it all once it looks like a JSON object. */
  #decide(id: string, call: StreamingCall, out: ChatStreamEvent[]): void {
    const { raw } = call;
    for (; call.scanned < raw.length && call.seen.length < 2; call.scanned++) {
      const c = raw.charCodeAt(call.scanned);
      if (!isSpace(c)) call.seen += String.fromCharCode(c);
    }
    if (call.seen === '' || call.seen === '{') return;
    if (call.seen !== '{"' && call.seen !== '{}') {
      call.mode = 'held';
      return;
    }
    call.mode = 'forwarding';
    out.push({ type: 'tool-call-delta', id: this.clientId(id), argumentsDelta: raw });
    call.raw = '';
  }

  map(event: ChatStreamEvent, out: ChatStreamEvent[]): void {
    const clientTools = this.#clientTools;
    switch (event.type) {
      case 'text-delta':
        if (event.delta === '') return;
        if (this.#stepHasText) {
          out.push(event);
          return;
        }
        this.#stepHasText = true;
        if (!this.#textSoFar) {
          this.#textSoFar = true;
          out.push(event);
          return;
        }
        // The first text of a later step: set apart from the previous step's.
        out.push({ type: 'text-delta', delta: `\n\n${event.delta}` });
        return;
      case 'reasoning-delta':
      case 'warning':
      case 'error':
        out.push(event);
        return;
      case 'tool-call-start':
        // Only the client's calls stream; server calls and unknown names stay inside the loop.
        if (event.providerExecuted === true || !clientTools.has(event.name) || this.#streaming?.has(event.id) === true) return;
        (this.#streaming ??= new Map()).set(event.id, { mode: 'pending', raw: '', scanned: 0, seen: '' });
        out.push({ type: 'tool-call-start', id: this.clientId(event.id), name: event.name });
        return;
      case 'tool-call-delta': {
        const call = this.#streaming?.get(event.id);
        if (call === undefined || event.argumentsDelta === '') return;
        switch (call.mode) {
          case 'forwarding':
            out.push({ type: 'tool-call-delta', id: this.clientId(event.id), argumentsDelta: event.argumentsDelta });
            return;
          case 'pending':
            call.raw += event.argumentsDelta;
            this.#decide(event.id, call, out);
            return;
          case 'held':
            call.raw += event.argumentsDelta;
            return;
          default: {
            const unexpected: never = call.mode;
            throw new Error(`Unknown call mode ${String(unexpected)}`);
          }
        }
      }
      case 'tool-call': {
        const call = event.toolCall;
        const streamed = this.#streaming?.get(call.id);
        this.#streaming?.delete(call.id);
        if (call.providerExecuted === true || !clientTools.has(call.name)) return;
        if (streamed === undefined) {
          // Not streamed (generate): the loop answers unreadable arguments itself.
          if (call.invalid === undefined) out.push({ type: 'tool-call', toolCall: { ...call, id: this.clientId(call.id) } });
          return;
        }
        if (call.invalid !== undefined) {
          // Its header is on the wire: it stays the client's, as the model wrote it (see above).
          this.#endsAfterStep = true;
          if (streamed.raw !== '') out.push({ type: 'tool-call-delta', id: this.clientId(call.id), argumentsDelta: streamed.raw });
        }
        out.push({ type: 'tool-call', toolCall: { ...call, id: this.clientId(call.id) } });
        return;
      }
      case 'finish':
        // One per step; the client gets one at the end.
        this.#usage = addUsage(this.#usage, event.usage);
        this.#stepHasText = false;
        this.#stepFinish = event.finishReason;
        this.#streaming?.clear();
        return;
      case 'tool-result':
        return;
      default: {
        const unexpected: never = event;
        throw new Error(`Unknown stream event ${JSON.stringify(unexpected)}`);
      }
    }
  }

  finish(result: RunToolsResult): ChatStreamEvent {
    const last = result.finishReason;
    const finishReason: FinishReason =
      result.stoppedBy === 'client-tool-calls' ? 'tool-calls' : result.stoppedBy === 'max-steps' || last === 'tool-calls' ? 'stop' : last;
    const usage = this.#usage;
    return { type: 'finish', finishReason, ...(usage === undefined ? {} : { usage }) };
  }

  finishAtStep(): ChatStreamEvent {
    const usage = this.#usage;
    return { type: 'finish', finishReason: this.#stepFinish === 'length' ? 'length' : 'tool-calls', ...(usage === undefined ? {} : { usage }) };
  }
}
