import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServer } from '../src/index.ts';

const here = dirname(fileURLToPath(import.meta.url));

/** The workspace root: the test server's SDK and zod resolve through its node_modules. */
export function workspaceRoot(): string {
  let dir = here;
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('pnpm-workspace.yaml not found above the tests');
    dir = parent;
  }
  return dir;
}

/**
 * The test server as a sandboxed stdio server: this Node (24, which runs TypeScript as it
 * is) and the workspace bound read-only, nothing else of the host.
 */
export function stdioTestServer(extra: Partial<McpStdioServer> = {}): McpStdioServer {
  const node = realpathSync(process.execPath);
  return {
    command: node,
    args: [join(here, 'fixtures', 'stdio-server.ts')],
    readOnlyPaths: [workspaceRoot(), dirname(node)],
    ...extra,
  };
}

/** The hand-written hostile server (`fixtures/hostile-stdio-server.ts`) in `mode`, sandboxed like the test server. */
export function hostileStdioServer(mode: string, extra: Partial<McpStdioServer> = {}): McpStdioServer {
  return stdioTestServer({ args: [join(here, 'fixtures', 'hostile-stdio-server.ts'), mode], ...extra });
}

/** Waits (at most `ms`) until `check` holds; resolves with whether it did. */
export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
