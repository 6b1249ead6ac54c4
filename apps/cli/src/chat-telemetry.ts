import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import { genAiProviderName } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import { startOtelFromEnv } from '@toolwire/server';
import type { OtelHandle, OtelLog } from '@toolwire/server';
import type { CommandContext } from './context.ts';
import { eprintln, style } from './output.ts';
import type { Output } from './output.ts';

/** The instrumentation scope of the CLI's own spans. */
const TRACER_NAME = '@toolwire/cli';

/** OpenTelemetry's warnings as `warning:` lines on stderr; its info lines are left out. */
function stderrLog(output: Output): OtelLog {
  return {
    warn(fields, message) {
      const err = fields.err as { message?: unknown } | undefined;
      const detail = typeof err?.message === 'string' ? ` (${err.message})` : '';
      eprintln(output, style(output, 'yellow', `warning: ${message}${detail}`));
    },
    info() {
      // Recovery lines matter to a long-running gateway, not to one chat.
    },
  };
}

/**
 * Starts OTLP export for `chat` when the standard `OTEL_*` variables ask for it, as the
 * gateway does (the same function), under the service name `toolwire-cli`.
 */
export function startChatTelemetry(context: CommandContext): OtelHandle | undefined {
  return startOtelFromEnv(context.env, { serviceName: 'toolwire-cli', log: stderrLog(context.output) });
}

/**
 * Runs one turn of the tool loop inside an `invoke_agent toolwire` span (GenAI semantic
 * conventions), so that its `chat` and `execute_tool` spans share one trace. Without an SDK
 * this is the API's no-op span.
 */
export function withTurnSpan<T>(model: ChatModel, run: () => Promise<T>): Promise<T> {
  const provider = genAiProviderName(model.provider);
  const attributes: Attributes = {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'toolwire',
    'gen_ai.provider.name': provider,
    'gen_ai.request.model': model.modelId,
  };
  // As on core's chat spans: `chatgpt/…` is OpenAI's, with Toolwire's name beside it.
  if (provider !== model.provider) attributes['toolwire.provider.name'] = model.provider;
  return trace.getTracer(TRACER_NAME).startActiveSpan('invoke_agent toolwire', { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await run();
    } catch (error) {
      // Only a name: messages can carry what the user or the model wrote.
      const type = error instanceof Error ? error.name : typeof error;
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      throw error;
    } finally {
      span.end();
    }
  });
}
