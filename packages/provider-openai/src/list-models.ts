import { mapOpenAIError } from './map-openai-error.ts';
import type { OpenAIClientContext } from './openai-client-context.ts';

/** One model an endpoint offers. */
export interface OpenAIModelInfo {
  id: string;
  ownedBy: string;
  /** Unix seconds, as the API reports it. */
  created: number;
}

/** Lists the models of an endpoint through the SDK (`GET /models`, every page). */
export async function listOpenAIModels(context: OpenAIClientContext, options: { signal?: AbortSignal } = {}): Promise<OpenAIModelInfo[]> {
  const models: OpenAIModelInfo[] = [];
  try {
    for await (const model of context.client().models.list(options.signal ? { signal: options.signal } : {})) {
      models.push({ id: model.id, ownedBy: model.owned_by, created: model.created });
    }
  } catch (error) {
    throw mapOpenAIError(error, { baseURL: context.baseURL, modelId: '(listing models)', signal: options.signal, secrets: context.secrets?.() ?? [] });
  }
  return models;
}
