import { access, constants, realpath } from 'node:fs/promises';
import { InterpreterUnavailableError } from '../errors.ts';

// Absolute paths of system interpreters. `python3` on PATH is often a pyenv or asdf shim,
// a shell script that looks in the home directory, which the sandbox does not mount.
const CANDIDATES = ['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3'];

/**
 * The real path of a usable `python3`: `explicit` when given, else the first system
 * interpreter found. Throws `InterpreterUnavailableError` saying how to fix it.
 */
export async function findPython(explicit?: string): Promise<string> {
  const candidates = explicit === undefined ? CANDIDATES : [explicit];
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return await realpath(candidate);
    } catch {
      // Try the next one.
    }
  }
  const tried = candidates.join(', ');
  throw new InterpreterUnavailableError({
    language: 'python',
    message:
      `No python3 interpreter found (tried ${tried}). Install one (Debian/Ubuntu: \`apt-get install python3\`) or pass ` +
      "`pythonPath: '/path/to/python3'`, a real interpreter outside your home directory (pyenv/asdf shims do not work inside the sandbox).",
  });
}
