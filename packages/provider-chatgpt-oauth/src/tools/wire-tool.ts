import type { JsonSchema } from '@toolwire/core';

/** A tool in the backend's `tools` array (a Responses function tool, or a provider tool's own object). */
export type WireTool =
  | { type: 'function'; name: string; description?: string; strict: boolean; parameters: JsonSchema }
  | ({ type: string } & Record<string, unknown>);

/** The backend's `tool_choice`. */
export type WireToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

/** How the model may use tools in this package: as functions, or mapped onto Codex's two tools. */
export type ChatGPTToolMode = 'passthrough' | 'codex';

/**
 * How wire tool names relate to the caller's tools for one request. In `passthrough`
 * mode names are the same on both sides.
 */
export interface ToolMapping {
  mode: ChatGPTToolMode;
  /** Backend tool name → the caller's tool (codex mode: `shell` → `bash`). */
  toUser: ReadonlyMap<string, string>;
  /** The caller's tool → backend tool name (codex mode: `bash` → `shell`). */
  toWire: ReadonlyMap<string, string>;
  /** Caller tools offered as `toolwire-tool` commands through `shell` (codex mode with `cliTools`). */
  cliTools: ReadonlySet<string>;
}
