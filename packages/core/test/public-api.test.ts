import { describe, expect, it } from 'vitest';
import * as core from '@toolwire/core';
import * as testing from '@toolwire/core/testing';

describe('the public entry points', () => {
  it('export the tool API from @toolwire/core', () => {
    for (const name of ['defineTool', 'ToolRegistry', 'executeToolCall', 'runTools', 'runToolsStream', 'collectStream', 'partitionTools', 'generateId', 'parseArguments']) {
      expect(typeof (core as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('export the test models from @toolwire/core/testing', () => {
    for (const name of ['createScriptedModel', 'createReplayModel', 'parseReplayTranscript', 'ScriptExhaustedError', 'ReplayMismatchError', 'InvalidTranscriptError']) {
      expect(typeof (testing as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('give testing errors the Toolwire root', () => {
    const error = new testing.ScriptExhaustedError({ callNumber: 2, steps: 1 });
    expect(core.ToolwireError.isInstance(error)).toBe(true);
    expect(error.name).toBe('ScriptExhaustedError');
  });
});
