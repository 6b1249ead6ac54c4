import { ToolwireError } from '@toolwire/core';

/** The server's configuration (flags, file or environment) is invalid; the message names the setting. */
export class ConfigError extends ToolwireError {
  static override readonly errorName = 'ConfigError';
  /** The setting at fault, e.g. `keys[0].keyHash` or `--port`. */
  readonly setting: string;
  constructor(options: { setting: string; message: string }) {
    super(`${options.setting}: ${options.message}`);
    this.setting = options.setting;
  }
  static override isInstance(error: unknown): error is ConfigError {
    return this.hasMarker(error, ConfigError.errorName);
  }
}
