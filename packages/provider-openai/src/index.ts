export { createOpenAI } from './create-openai.ts';
export type { OpenAIProvider, OpenAIProviderOptions } from './create-openai.ts';
export type { OpenAIModelInfo } from './list-models.ts';
export type { OpenAIModelSettings } from './openai-model-settings.ts';
export type { SystemMessageMode } from './openai-chat-messages.ts';
export type { ResponsesProviderToolConfig as OpenAIProviderToolConfig } from '@toolwire/openai-responses';
export type { OpenAIRequestOptions } from './openai-provider-options.ts';
export { toStrictJsonSchema } from '@toolwire/openai-responses';
export { mapOpenAIError } from './map-openai-error.ts';
