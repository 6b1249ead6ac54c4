/** One output of a code run: printed text (`logs`) or an image (OpenAI sends `data:image/png;base64,…` URLs). */
export type CodeInterpreterOutput = { type: 'logs'; logs: string } | { type: 'image'; url: string };

/** A file a run produced, enough to download it (OpenAI) or read it (local work dir). */
export interface CodeInterpreterFile {
  /** `cntr_…` for OpenAI, `local:<id>` for the local interpreter. */
  containerId: string;
  /** OpenAI's `cfile_…` id; for the local interpreter, the path relative to the work dir. */
  fileId: string;
  filename: string;
  /** Absolute path on this machine (local interpreter only). */
  path?: string;
  /** Size in bytes, when known. */
  bytes?: number;
}

/**
 * The `value` of a code interpreter `ToolResult`, the same for OpenAI's container and the
 * local interpreter, so callers need not know which one ran the code.
 */
export interface CodeInterpreterValue {
  code: string;
  containerId: string;
  outputs: CodeInterpreterOutput[];
  files: CodeInterpreterFile[];
  /** Standard output (local interpreter; for OpenAI, the logs joined). */
  stdout: string;
  /** Standard error. OpenAI does not return it, so it is `''` there. */
  stderr: string;
  /** Process exit code (local interpreter only; OpenAI does not report one). */
  exitCode?: number;
  /** OpenAI's call status (`completed`, `failed`, …). */
  status?: string;
}
