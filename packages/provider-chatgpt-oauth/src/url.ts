/** `base` without trailing slashes, so that `base + '/path'` has exactly one. */
export function trimTrailingSlashes(base: string): string {
  let end = base.length;
  while (end > 0 && base.charCodeAt(end - 1) === 47 /* '/' */) end--;
  return base.slice(0, end);
}
