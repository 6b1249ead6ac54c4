/**
 * Provider-specific data keyed by provider name (`{ openai: { responseId: … } }`),
 * carried on responses and replayed on assistant messages.
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;
