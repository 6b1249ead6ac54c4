/**
 * Sent as `instructions` when the model catalog cannot be read or does not list the model.
 * The backend requires the field (`400 "Instructions are required"`); since 2026 it
 * accepts instructions other than Codex's own. Written for Toolwire, not copied.
 */
export const FALLBACK_INSTRUCTIONS = [
  'You are a capable assistant running through Toolwire.',
  'Follow the developer and user messages. When tools are available, call them with arguments that match their schemas, wait for their results, and use the results in your answer.',
  'Be concise and accurate. If a request is ambiguous, say what you assumed.',
].join('\n');
