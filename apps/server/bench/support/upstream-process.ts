// A fake OpenAI upstream in its own process, so its cost does not land on the measured side.
import { startFakeOpenAI } from '../../test/helpers/fake-upstreams.ts';

const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
const upstream = await startFakeOpenAI(() => ({ text: TEXT }));
process.stdout.write(`${JSON.stringify({ url: upstream.url })}\n`);
process.on('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
