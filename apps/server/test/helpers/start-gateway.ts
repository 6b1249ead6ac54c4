import type { ChatModel } from '@toolwire/core';
import { pino } from 'pino';
import { createServer } from '../../src/index.ts';
import type { ServerConfig, ToolwireServer } from '../../src/index.ts';

/** A gateway on 127.0.0.1 with a `test/<id>` prefix served by `model`, quiet logs. */
export async function startGateway(
  model: ChatModel | ((id: string) => ChatModel),
  config: ServerConfig = {},
): Promise<{ server: ToolwireServer; baseURL: string; origin: string }> {
  const server = createServer({
    logger: pino({ level: 'silent' }),
    ...config,
    modelProviders: [
      { name: 'test', chat: (id) => (typeof model === 'function' ? model(id) : model), listModels: () => Promise.resolve(['scripted']) },
      ...(config.modelProviders ?? []),
    ],
  });
  const baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
  return { server, baseURL, origin: baseURL.slice(0, -'/v1'.length) };
}
