/** Why the model stopped. `tool-calls` whenever the turn contains tool calls (unless cut by `length`). */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';
