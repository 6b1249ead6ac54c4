import type { Warning } from '@toolwire/core';

/** The warning for calls beyond the first when `parallelToolCalls` is `false`. */
export function droppedCallsWarning(count: number): Warning {
  return {
    type: 'other',
    message: `The model made ${count + 1} tool calls although parallelToolCalls was false; only the first was kept.`,
  };
}
