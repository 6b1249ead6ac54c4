import { mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The integration tests import the whole workspace (providers, sandbox, both SDKs); sharing
// the module cache between test files of a worker keeps the suite inside its time budget
// on a 2-core machine. No test relies on fresh module state.
export default mergeConfig(sharedConfig, { test: { isolate: false } });
