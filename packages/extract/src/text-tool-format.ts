import type { NativeToolCallFormat } from './extract-options.ts';

/**
 * How a prompt asks a text-only model to write calls, and how earlier calls are written
 * back into the history: `name(a=1)` (`'call'`, the default), `<tool_call>{json}</tool_call>`
 * (`'json-tag'`), or the format a model family was trained on, named by family, since small
 * models call tools far more reliably in their own format.
 */
export type TextToolFormat =
  | 'call'
  | 'json-tag'
  /** Hermes 2/3, Qwen2.5, Qwen3 (non-Coder), Granite 4: `<tool_call>\n{"name", "arguments"}\n</tool_call>`. */
  | 'hermes'
  /** A model family's native format, as the scanner reads it (`ToolCallFormat`). */
  | NativeToolCallFormat;

/** Every text tool format. */
export const TEXT_TOOL_FORMATS: readonly TextToolFormat[] = [
  'call',
  'json-tag',
  'hermes',
  'qwen3-xml',
  'seed-oss',
  'minimax-m2',
  'minimax-m3',
  'glm',
  'deepseek',
  'deepseek-dsml',
  'kimi-k2',
  'kimi-k3',
  'gemma4',
  'functiongemma',
  'harmony',
  'mistral',
  'functionary',
  'apertus',
  'solar-open',
  'plamo3',
  'minicpm5',
];
