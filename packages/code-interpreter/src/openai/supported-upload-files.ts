import { UnsupportedUploadError } from '../errors.ts';

// OpenAI's code interpreter guide, "Supported files". Where it lists two MIME types, both are accepted.
const SUPPORTED: Readonly<Record<string, readonly string[]>> = {
  '.c': ['text/x-c'],
  '.cs': ['text/x-csharp'],
  '.cpp': ['text/x-c++'],
  '.csv': ['text/csv', 'application/csv'],
  '.doc': ['application/msword'],
  '.docx': ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  '.html': ['text/html'],
  '.java': ['text/x-java'],
  '.json': ['application/json'],
  '.md': ['text/markdown'],
  '.pdf': ['application/pdf'],
  '.php': ['text/x-php'],
  '.pptx': ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  '.py': ['text/x-python', 'text/x-script.python'],
  '.rb': ['text/x-ruby'],
  '.tex': ['text/x-tex'],
  '.txt': ['text/plain'],
  '.css': ['text/css'],
  '.js': ['text/javascript'],
  '.sh': ['application/x-sh'],
  '.ts': ['application/typescript'],
  '.jpeg': ['image/jpeg'],
  '.jpg': ['image/jpeg'],
  '.gif': ['image/gif'],
  '.png': ['image/png'],
  '.pkl': ['application/octet-stream'],
  '.tar': ['application/x-tar'],
  '.xlsx': ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  '.xml': ['application/xml', 'text/xml'],
  '.zip': ['application/zip'],
};

/** The largest upload accepted by default: 512 MiB (OpenAI's documented file limit). */
export const DEFAULT_MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

/** The file extensions code interpreter accepts, with the dot (`'.csv'`). */
export const SUPPORTED_UPLOAD_EXTENSIONS: readonly string[] = Object.keys(SUPPORTED);

function extensionOf(filename: string): string {
  const slash = Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\'));
  const base = filename.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

/** What `checkUploadFile` needs to know about a file. */
export interface UploadFileFacts {
  filename: string;
  bytes: number;
  /** Checked against the extension's MIME types when given (parameters like `; charset=` are ignored). */
  mimeType?: string;
  /** Default `DEFAULT_MAX_UPLOAD_BYTES`. */
  maxBytes?: number;
}

/**
 * Throws `UnsupportedUploadError` unless OpenAI's code interpreter supports the file's
 * extension (and MIME type, when given) and it is not larger than `maxBytes`. Returns the
 * MIME type to send.
 *
 * @example checkUploadFile({ filename: 'data.csv', bytes: 1200 }) // 'text/csv'
 */
export function checkUploadFile(facts: UploadFileFacts): string {
  const { filename, bytes, maxBytes = DEFAULT_MAX_UPLOAD_BYTES } = facts;
  const extension = extensionOf(filename);
  const mimeTypes = Object.hasOwn(SUPPORTED, extension) ? SUPPORTED[extension] : undefined;
  if (mimeTypes === undefined || mimeTypes.length === 0) {
    throw new UnsupportedUploadError({
      filename,
      reason: 'extension',
      message:
        `Cannot upload "${filename}": code interpreter does not accept ${extension === '' ? 'files without an extension' : `"${extension}" files`}. ` +
        `Supported: ${SUPPORTED_UPLOAD_EXTENSIONS.join(' ')}. Convert the file (e.g. to .csv or .txt) or zip it.`,
    });
  }
  if (facts.mimeType !== undefined) {
    const mime = facts.mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!mimeTypes.includes(mime)) {
      throw new UnsupportedUploadError({
        filename,
        reason: 'mime-type',
        message: `Cannot upload "${filename}": MIME type "${mime}" does not match "${extension}" (expected ${mimeTypes.join(' or ')}). Fix the file name or the type.`,
      });
    }
  }
  if (!Number.isFinite(bytes) || bytes < 0 || bytes > maxBytes) {
    throw new UnsupportedUploadError({
      filename,
      reason: 'size',
      message: `Cannot upload "${filename}": it is ${bytes} bytes, more than the limit of ${maxBytes} bytes. Split or compress it.`,
    });
  }
  return facts.mimeType?.split(';')[0]?.trim().toLowerCase() ?? (mimeTypes[0] as string);
}
