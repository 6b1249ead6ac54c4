// Entry point of a sandbox worker process (spawned by the pool with Node 24). It holds
// the isolates, so a V8 abort or a hang costs this process, never the caller's.
import { IsolateRunner } from './isolate-runner.ts';
import type { RunRequest, WorkerConfig, WorkerMessage } from './worker-protocol.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const runner = new IsolateRunner(config);

function send(message: WorkerMessage): void {
  process.send?.(message);
}

process.on('message', (message: RunRequest) => {
  if (message.type !== 'run') return;
  void runner.run(message).then((result) => {
    send({ type: 'result', id: message.id, result });
    runner.prepare();
  });
});
process.on('disconnect', () => process.exit(0));

runner.prepare();
send({ type: 'ready' });
