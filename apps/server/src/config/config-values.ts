import { ConfigError } from './config-error.ts';

/** A config object as parsed from JSON. */
export type Json = Record<string, unknown>;

/** Whether a config value is a plain object (not null, not an array). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Throws the `ConfigError` for `setting` (the bin exits 2 with it). */
export function fail(setting: string, message: string): never {
  throw new ConfigError({ setting, message });
}

/** An optional non-empty string. */
export function str(value: unknown, setting: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') fail(setting, 'expected a non-empty string.');
  return value;
}

/** An optional http(s) URL, kept as written; `example` shows the user a good one. */
export function httpUrl(value: unknown, setting: string, example: string): string | undefined {
  const text = str(value, setting);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(setting, `'${text}' is not a URL; expected e.g. ${example}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(setting, `expected an http:// or https:// URL, got '${url.protocol}'.`);
  return text;
}
