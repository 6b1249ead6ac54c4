// Shared by the tests of packages/sandbox, code-interpreter and mcp: a root container or CI
// runner often has no writable cgroups, and this reproduces one on any machine.
import { spawn } from 'node:child_process';

export interface JailOptions {
  /** The bubblewrap binary (`getSandboxSupport().bubblewrap.path`). */
  bwrap: string;
  /** Module paths bound to names the script uses: `{ sandbox: '/…/src/index.ts' }`. */
  imports: Readonly<Record<string, string>>;
  /** An ES module body run after the imports; what it prints is the test's outcome. */
  script: string;
  /** More bubblewrap arguments for the outer jail. */
  extraArgs?: readonly string[];
}

export interface JailRun {
  /** The outer bubblewrap's pid (the commands the script starts are below it). */
  pid: number | undefined;
  done: Promise<{ stdout: string; stderr: string; code: number | null }>;
}

/**
 * Runs `script` in Node (the running binary, with the workspace's source condition) inside an
 * outer bubblewrap jail whose /sys/fs/cgroup is an empty read-only tmpfs.
 */
export function runInJailWithoutCgroups(options: JailOptions): JailRun {
  const imports = Object.entries(options.imports)
    .map(([name, path]) => `const ${name} = await import(${JSON.stringify(path)});\n`)
    .join('');
  const child = spawn(
    options.bwrap,
    [
      '--dev-bind', '/', '/',
      '--tmpfs', '/sys/fs/cgroup',
      '--remount-ro', '/sys/fs/cgroup',
      ...(options.extraArgs ?? []),
      '--die-with-parent',
      '--',
      process.execPath,
      '--conditions=@toolwire/source',
      '--input-type=module',
      '-e',
      `${imports}${options.script}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { pid: child.pid, done: new Promise((resolve) => child.on('close', (code) => resolve({ stdout, stderr, code }))) };
}
