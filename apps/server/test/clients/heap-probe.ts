// Loaded into the gateway's process by tests that measure its heap (`node --expose-gc
// --import`): answers 'heap' on the IPC channel with the heap used after two full GCs.
// Test-only; the gateway itself has no such channel.
const collect = (globalThis as { gc?: () => void }).gc;

process.on('message', (message) => {
  if (message !== 'heap') return;
  collect?.();
  collect?.();
  process.send?.({ heapUsed: process.memoryUsage().heapUsed });
});
