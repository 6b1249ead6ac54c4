import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The tests keep no global state between files, so workers are reused (faster on a busy machine).
export default mergeConfig(sharedConfig, defineConfig({ test: { isolate: false } }));
