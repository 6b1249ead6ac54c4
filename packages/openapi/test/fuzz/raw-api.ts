// An API on 127.0.0.1 that writes its answers byte by byte from a plan: odd status lines,
// content types and lengths, bodies that echo the request (credentials and all), resets.
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

/** How the next answer is written. */
export interface ResponsePlan {
  status: number;
  statusText: 'plain' | 'echo' | 'empty';
  contentType: string | undefined;
  body: 'json' | 'json-invalid' | 'json-deep' | 'json-bom' | 'empty' | 'binary' | 'invalid-utf8' | 'echo' | 'echo-json-escaped' | 'echo-percent' | 'echo-json' | 'large';
  contentLength: 'exact' | 'none' | 'larger' | 'smaller' | 'garbage' | 'two-values' | 'negative';
  contentEncoding: string | undefined;
  retryAfter: 'none' | 'echo' | 'seconds' | 'garbage';
  /** Echo the request into the content type's parameters. */
  echoContentType: boolean;
  reset: 'none' | 'before-head' | 'mid-body';
}

export interface RawApi {
  origin: string;
  plan: ResponsePlan | undefined;
  openSockets(): number;
  close(): Promise<void>;
}

function bodyFor(plan: ResponsePlan, head: string): Buffer {
  // What an API echoes: the request line and headers, credentials among them.
  switch (plan.body) {
    case 'json':
      return Buffer.from('{"ok":true,"items":[1,"two",null],"nested":{"a":{"b":[]}}}');
    case 'json-invalid':
      return Buffer.from('{"ok":tru');
    case 'json-deep':
      return Buffer.from(`${'['.repeat(400)}${']'.repeat(400)}`);
    case 'json-bom':
      return Buffer.from('\ufeff{"ok":true}');
    case 'empty':
      return Buffer.alloc(0);
    case 'binary':
      return Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x01]);
    case 'invalid-utf8':
      return Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]);
    case 'echo':
      return Buffer.from(`you sent:\n${head}`);
    case 'echo-json':
      return Buffer.from(JSON.stringify({ request: head, lines: head.split('\r\n') }));
    case 'echo-json-escaped':
      return Buffer.from(`{"request":"${Array.from(head, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}`);
    case 'echo-percent':
      return Buffer.from(`request=${encodeURIComponent(head)}`);
    case 'large':
      return Buffer.from(`${head}${'x'.repeat(80 * 1024)}${head}`);
    default: {
      const unknown: never = plan.body;
      throw new Error(String(unknown));
    }
  }
}

/** The request's header values on one line, as a status text or a header can hold them. */
function oneLine(head: string): string {
  return head
    .split('\r\n')
    .map((line) => line.slice(line.indexOf(':') + 1).trim())
    .join(' ')
    .replace(/[^\x20-\x7e]/g, ' ');
}

function respond(socket: Socket, plan: ResponsePlan, head: string): void {
  if (plan.reset === 'before-head') {
    socket.resetAndDestroy();
    return;
  }
  const body = bodyFor(plan, head);
  const statusText = plan.statusText === 'echo' ? oneLine(head) : plan.statusText === 'empty' ? '' : 'Answer';
  const lines = [`HTTP/1.1 ${plan.status} ${statusText}`, 'connection: close'];
  let contentType = plan.contentType;
  if (plan.echoContentType) contentType = `${contentType ?? 'text/plain'}; echo="${oneLine(head)}"`;
  if (contentType !== undefined) lines.push(`content-type: ${contentType}`);
  if (plan.contentEncoding !== undefined) lines.push(`content-encoding: ${plan.contentEncoding}`);
  if (plan.retryAfter === 'echo') lines.push(`retry-after: ${oneLine(head)}`);
  else if (plan.retryAfter === 'seconds') lines.push('retry-after: 3');
  else if (plan.retryAfter === 'garbage') lines.push('retry-after: soon-ish');
  switch (plan.contentLength) {
    case 'exact':
      lines.push(`content-length: ${body.length}`);
      break;
    case 'larger':
      lines.push(`content-length: ${body.length + 10}`);
      break;
    case 'smaller':
      lines.push(`content-length: ${Math.max(0, body.length - 3)}`);
      break;
    case 'garbage':
      lines.push('content-length: abc');
      break;
    case 'two-values':
      lines.push(`content-length: ${body.length}, ${body.length + 1}`);
      break;
    case 'negative':
      lines.push('content-length: -1');
      break;
    case 'none':
      break;
    default: {
      const unknown: never = plan.contentLength;
      throw new Error(String(unknown));
    }
  }
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (plan.reset === 'mid-body') {
    socket.write(body.subarray(0, Math.floor(body.length / 2)));
    socket.resetAndDestroy();
    return;
  }
  socket.end(body);
}

export async function startRawApi(): Promise<RawApi> {
  const sockets = new Set<Socket>();
  const api: RawApi = {
    origin: '',
    plan: undefined,
    openSockets: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? '0');
      if (received.length < end + 4 + length) return;
      socket.removeAllListeners('data');
      const plan = api.plan;
      if (plan === undefined) socket.end('HTTP/1.1 500 No plan\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      else respond(socket, plan, head);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}
