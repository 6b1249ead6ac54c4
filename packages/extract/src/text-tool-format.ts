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
  /** Qwen3-Coder, Qwen3.5, Nemotron 3. */
  | 'qwen3-xml'
  | 'seed-oss'
  | 'minimax-m2'
  /** GLM-4.5/4.6/4.7. */
  | 'glm'
  /** DeepSeek V3.1 special tokens. */
  | 'deepseek'
  /** DeepSeek V3.2 DSML. */
  | 'deepseek-dsml'
  | 'kimi-k2'
  | 'gemma4'
  /** gpt-oss. */
  | 'harmony'
  /** Mistral tokenizer v11+ (`[TOOL_CALLS]NAME[ARGS]{…}`). */
  | 'mistral'
  /** Functionary v3.1 (`<function=NAME>{…}</function>`). */
  | 'functionary'
  | 'apertus';

/** Every text tool format. */
export const TEXT_TOOL_FORMATS: readonly TextToolFormat[] = [
  'call',
  'json-tag',
  'hermes',
  'qwen3-xml',
  'seed-oss',
  'minimax-m2',
  'glm',
  'deepseek',
  'deepseek-dsml',
  'kimi-k2',
  'gemma4',
  'harmony',
  'mistral',
  'functionary',
  'apertus',
];
