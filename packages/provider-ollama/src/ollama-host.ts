/** Where Ollama listens when neither `host` nor `OLLAMA_HOST` says otherwise. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

const DEFAULT_PORT = '11434';

/**
 * The base URL of the Ollama server: `host`, else `OLLAMA_HOST`, else the default,
 * normalised the way the `ollama` client does it (`localhost` → `http://localhost:11434`,
 * `:8080` → `http://127.0.0.1:8080`, no trailing slash) so error messages name the URL
 * that was really called.
 */
export function resolveOllamaHost(host?: string, env: Record<string, string | undefined> = process.env): string {
  const raw = (host ?? env['OLLAMA_HOST'] ?? '').trim();
  if (raw === '') return DEFAULT_OLLAMA_HOST;
  let withProtocol = raw;
  let explicitProtocol = raw.includes('://');
  if (raw.startsWith(':')) {
    withProtocol = `http://127.0.0.1${raw}`;
    explicitProtocol = true;
  } else if (!explicitProtocol) {
    withProtocol = `http://${raw}`;
  }
  const url = new URL(withProtocol);
  let port = url.port;
  if (port === '') port = explicitProtocol ? (url.protocol === 'https:' ? '443' : '80') : DEFAULT_PORT;
  const auth = url.username === '' ? '' : `${url.username}${url.password === '' ? '' : `:${url.password}`}@`;
  let formatted = `${url.protocol}//${auth}${url.hostname}:${port}${url.pathname}`;
  while (formatted.endsWith('/')) formatted = formatted.slice(0, -1);
  return formatted;
}

/** The host without credentials, for messages and error fields. */
export function displayHost(host: string): string {
  const url = new URL(host);
  url.username = '';
  url.password = '';
  let shown = url.toString();
  while (shown.endsWith('/')) shown = shown.slice(0, -1);
  return shown;
}
