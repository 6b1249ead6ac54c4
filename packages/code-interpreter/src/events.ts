import type { MemoryLimit } from './openai/memory-limit.ts';

/**
 * What the code interpreter reports through an `onEvent` hook: container ids and memory
 * tiers for debugging, container lifecycle, and local runs. Never carries secrets or code output.
 */
export type CodeInterpreterEvent =
  | { type: 'container-created'; containerId: string; name: string; memoryLimit: MemoryLimit }
  | { type: 'container-used'; containerId: string; memoryLimit: MemoryLimit | undefined; toolCallId: string }
  | { type: 'container-expired'; containerId: string | undefined }
  | {
      type: 'container-recreated';
      previousContainerId: string | undefined;
      /** Unknown until the retried response names it (auto containers); then a `container-used` event follows. */
      containerId: string | undefined;
      memoryLimit: MemoryLimit | undefined;
    }
  | { type: 'container-deleted'; containerId: string }
  | { type: 'file-uploaded'; containerId: string; fileId: string; filename: string; bytes: number }
  | {
      type: 'local-run';
      containerId: string;
      language: 'javascript' | 'python';
      success: boolean;
      timedOut: boolean;
      durationMs: number;
    }
  | { type: 'work-dir-removed'; containerId: string; reason: 'idle' | 'disposed' };

/** Receives `CodeInterpreterEvent`s. Exceptions it throws are swallowed so logging cannot break a run. */
export type CodeInterpreterEventHandler = (event: CodeInterpreterEvent) => void;

/** Calls `onEvent` if present, ignoring anything it throws. */
export function emitEvent(onEvent: CodeInterpreterEventHandler | undefined, event: CodeInterpreterEvent): void {
  if (onEvent === undefined) return;
  try {
    onEvent(event);
  } catch {
    // A logging hook must not change the outcome of a run.
  }
}
