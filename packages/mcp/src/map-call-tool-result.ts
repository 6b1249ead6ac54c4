import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { toolOutput } from '@toolwire/core';
import type { ToolOutput } from '@toolwire/core';

/** What `callTool` may answer: a current result, or a pre-2024-11 server's bare `toolResult`. */
export type McpCallToolAnswer = CallToolResult | { toolResult: unknown; content?: undefined; structuredContent?: undefined; isError?: undefined };

/** The structured value of an MCP tool result, as `ToolResult.value`. */
export interface McpToolValue {
  /** The result's content blocks as the server sent them (images and audio as base64). */
  content: ContentBlock[];
  /** The result's `structuredContent`, when the tool declares an output schema. */
  structuredContent?: Record<string, unknown>;
}

/**
 * Maps an MCP `CallToolResult` onto a core tool output: the text the model reads (text
 * blocks and embedded text resources as they are; images, audio, blobs and links as short
 * placeholders, their data kept in `value`), `structuredContent` as JSON when there is no
 * text, `isError` as a failed result, and the text cut at `maxMessageChars`.
 */
export function mapCallToolResult(answer: McpCallToolAnswer, options: { maxMessageChars: number }): ToolOutput {
  if ('toolResult' in answer && answer.content === undefined) {
    const message = typeof answer.toolResult === 'string' ? answer.toolResult : (JSON.stringify(answer.toolResult) ?? '');
    return toolOutput({ message: cut(message, options.maxMessageChars), value: { content: [{ type: 'text', text: message }] } });
  }
  const result = answer;
  const content = result.content;
  const parts = content.map(describeBlock);
  let message = parts.join('\n');
  if (message === '' && result.structuredContent !== undefined) message = JSON.stringify(result.structuredContent);
  const isError = result.isError === true;
  if (message === '') message = isError ? 'The tool failed without saying why.' : 'Done (no output).';
  const value: McpToolValue = { content };
  if (result.structuredContent !== undefined) value.structuredContent = result.structuredContent;
  return toolOutput({ message: cut(message, options.maxMessageChars), value, success: !isError, errorType: 'execution_error' });
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image: ${block.mimeType}, ${base64Size(block.data)}]`;
    case 'audio':
      return `[audio: ${block.mimeType}, ${base64Size(block.data)}]`;
    case 'resource_link':
      return `[resource link: ${block.name} ${block.uri}${block.mimeType === undefined ? '' : ` (${block.mimeType})`}]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource) return resource.text;
      return `[resource: ${resource.uri}${resource.mimeType === undefined ? '' : `, ${resource.mimeType}`}, ${base64Size(resource.blob)}]`;
    }
    default: {
      const unknown: never = block;
      return `[${String((unknown as { type?: unknown }).type)} content]`;
    }
  }
}

function base64Size(data: string): string {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const bytes = Math.floor((data.length * 3) / 4) - padding;
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[… ${text.length - maxChars} more characters cut]`;
}
