// The MCP server of `toolwire demo`: a stdio server written with the official MCP SDK,
// started by the demo inside the shell sandbox. Run it on its own with
// `node dist/demo-mcp-server.js` and speak JSON-RPC lines to it.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

const UNITS = ['km', 'mi', 'm', 'ft', 'kg', 'lb', 'c', 'f'] as const;
type Unit = (typeof UNITS)[number];

// Each unit as (factor, offset) of its base unit: metres, kilograms, degrees Celsius.
const TO_BASE: Record<Unit, { base: string; factor: number; offset: number }> = {
  km: { base: 'm', factor: 1000, offset: 0 },
  mi: { base: 'm', factor: 1609.344, offset: 0 },
  m: { base: 'm', factor: 1, offset: 0 },
  ft: { base: 'm', factor: 0.3048, offset: 0 },
  kg: { base: 'kg', factor: 1, offset: 0 },
  lb: { base: 'kg', factor: 0.45359237, offset: 0 },
  c: { base: 'c', factor: 1, offset: 0 },
  f: { base: 'c', factor: 5 / 9, offset: -32 },
};

const server = new McpServer({ name: 'toolwire-demo-units', version: '1.0.0' });
server.registerTool(
  'convert_units',
  {
    description: 'Converts a value between units of length, mass or temperature',
    inputSchema: { value: z.number(), from: z.enum(UNITS), to: z.enum(UNITS) },
    outputSchema: { value: z.number(), unit: z.string() },
  },
  ({ value, from, to }) => {
    const source = TO_BASE[from];
    const target = TO_BASE[to];
    if (source.base !== target.base) {
      return { content: [{ type: 'text', text: `cannot convert ${from} to ${to}: they measure different things` }], isError: true };
    }
    const base = (value + source.offset) * source.factor;
    const converted = Math.round((base / target.factor - target.offset) * 1000) / 1000;
    return { content: [{ type: 'text', text: `${value} ${from} = ${converted} ${to}` }], structuredContent: { value: converted, unit: to } };
  },
);
await server.connect(new StdioServerTransport());
