import { spawn } from 'node:child_process';

/**
 * Opens a URL in the default browser with the platform's opener, passing the URL as one
 * argument (never through a shell). Failure is silent: the caller also prints the URL.
 */
export function openUrlInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener on this machine; the printed URL remains.
  }
}
