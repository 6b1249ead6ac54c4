import type { CommandContext } from '../context.ts';
import { ollamaFromEnv, openAIConfigured, openAIFromEnv } from '../model-providers.ts';
import { println, style } from '../output.ts';
import { formatTable } from '../table.ts';
import { CliError } from '../cli-error.ts';
import { visible } from '../terminal-text.ts';

interface ModelRow {
  model: string;
  tools: 'native' | 'text';
  note?: string;
}

/**
 * `toolwire models`: what each configured provider offers, marked native or text tools.
 * Ollama is asked at OLLAMA_HOST (or its default port); OpenAI when a key or base URL is set.
 */
export async function modelsCommand(context: CommandContext, options: { json?: boolean }): Promise<void> {
  const rows: ModelRow[] = [];
  const problems: string[] = [];

  try {
    for (const m of await ollamaFromEnv(context.env).listModels()) {
      rows.push({ model: `ollama/${m.name}`, tools: m.nativeTools ? 'native' : 'text' });
    }
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  if (openAIConfigured(context.env)) {
    try {
      for (const m of await openAIFromEnv(context.env).listModels()) rows.push({ model: `openai/${m.id}`, tools: 'native' });
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  } else {
    problems.push('OpenAI: OPENAI_API_KEY is not set (skipped).');
  }

  const { output } = context;
  if (options.json === true) for (const row of rows) println(output, JSON.stringify(row));
  else if (rows.length > 0) for (const line of formatTable(['model', 'tools'], rows.map((r) => [visible(r.model), r.tools]))) println(output, line);
  for (const problem of problems) context.output.err.write(`${style(output, 'yellow', 'note:')} ${visible(problem, { multiline: true })}\n`);
  if (rows.length === 0) {
    throw new CliError('No provider answered.', { hint: 'start Ollama (`ollama serve`) or set OPENAI_API_KEY' });
  }
}
