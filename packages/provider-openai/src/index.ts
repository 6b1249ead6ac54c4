export { createOpenAI } from './create-openai.ts';
export type { OpenAIProvider, OpenAIProviderOptions } from './create-openai.ts';
export type { OpenAIModelInfo } from './list-models.ts';
export type { OpenAIModelSettings } from './openai-model-settings.ts';
export type { SystemMessageMode } from './openai-chat-messages.ts';
export type { OpenAIProviderToolConfig } from './openai-responses-prepare-tools.ts';
export { toStrictJsonSchema } from './strict-json-schema.ts';
export { mapOpenAIError } from './map-openai-error.ts';
