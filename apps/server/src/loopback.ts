/** Whether `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true;
  const parts = host.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => p !== '' && Number(p) >= 0 && Number(p) <= 255);
}
