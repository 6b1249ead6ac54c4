import type { CodeInterpreterFile } from '../code-interpreter-value.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The files named by `container_file_citation` annotations, deduplicated by container and
 * file id, in first-seen order. With `containerId`, only that container's files.
 *
 * @example containerFilesFromAnnotations(context.annotations ?? [], 'cntr_…')
 */
export function containerFilesFromAnnotations(annotations: readonly unknown[], containerId?: string): CodeInterpreterFile[] {
  const files: CodeInterpreterFile[] = [];
  const seen = new Set<string>();
  for (const annotation of annotations) {
    if (!isRecord(annotation) || annotation.type !== 'container_file_citation') continue;
    const { container_id: cid, file_id: fid, filename } = annotation;
    if (typeof cid !== 'string' || typeof fid !== 'string') continue;
    if (containerId !== undefined && cid !== containerId) continue;
    const key = `${cid}\u0000${fid}`;
    if (seen.has(key)) continue;
    seen.add(key);
    files.push({ containerId: cid, fileId: fid, filename: typeof filename === 'string' ? filename : fid });
  }
  return files;
}

/**
 * Every annotation on the `output_text` parts of a Responses `output` array (annotations sit
 * in `message.content[].annotations`, not on the items themselves).
 */
export function annotationsFromResponseOutput(output: readonly unknown[]): unknown[] {
  const annotations: unknown[] = [];
  for (const item of output) {
    if (!isRecord(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content as unknown[]) {
      if (isRecord(part) && Array.isArray(part.annotations)) annotations.push(...(part.annotations as unknown[]));
    }
  }
  return annotations;
}
