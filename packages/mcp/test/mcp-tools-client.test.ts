import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { executeToolCall, ToolRegistry } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { mcpTools } from '../src/index.ts';

// A low-level SDK server, to send tool lists the high-level one would not produce.
async function connectedClient(serverName = 'raw'): Promise<{ client: Client; calls: string[] }> {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level server is the point: it sends lists McpServer would not
  const server = new Server({ name: serverName, version: '1.0.0' }, { capabilities: { tools: {} } });
  const calls: string[] = [];
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    if (request.params?.cursor === undefined) {
      return {
        tools: [
          { name: 'files/read', description: 'Reads a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
          { name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
        ],
        nextCursor: 'page-2',
      };
    }
    return { tools: [{ name: 'files_read', title: 'Clashes with files/read', inputSchema: { type: 'object' } }] };
  });
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    calls.push(request.params.name);
    return { content: [{ type: 'text', text: `read ${String(request.params.arguments?.path)}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, calls };
}

describe('mcpTools with a client you connected', () => {
  it('pages through the list, renames what providers refuse, and leaves out tools it cannot use', async () => {
    const { client, calls } = await connectedClient();
    const warnings: string[] = [];
    const ownErrors: Error[] = [];
    client.onerror = (error) => ownErrors.push(error);
    const set = await mcpTools(client, { onWarning: (message) => warnings.push(message) });
    expect(set.name).toBe('raw');
    expect(set.tools.map((tool) => tool.name)).toEqual(['files_read']);
    expect(warnings.join('\n')).toContain('"broken" is left out');
    expect(warnings.join('\n')).toContain('"files_read" is left out: its name "files_read" is taken by "files/read"');
    const result = await executeToolCall(
      { id: 'c1', name: 'files_read', arguments: { path: 'a.txt' } },
      { registry: new ToolRegistry({ tools: set.tools }) },
    );
    expect(result).toMatchObject({ success: true, message: 'read a.txt' });
    // The server saw its own name for the tool.
    expect(calls).toEqual(['files/read']);
    await set.close();
    // Your client stays yours: still connected after close(), with its own handler back.
    expect((await client.listTools()).tools.length).toBe(2);
    expect(client.onerror).toBeDefined();
    client.onerror?.(new Error('mine'));
    expect(ownErrors.map((error) => error.message)).toEqual(['mine']);
    expect(warnings.join('\n')).not.toContain('mine');
    await client.close();
  });

  // Second review: the 120-character cut split an emoji, leaving a lone surrogate in every message.
  it("cuts a long server name for its label without splitting a character", async () => {
    const { client } = await connectedClient(`${'a'.repeat(119)}😀${'b'.repeat(200)}`);
    const set = await mcpTools(client);
    await set.close();
    expect(set.name).toBe(`${'a'.repeat(119)}…`);
    await client.close();
  });
});
