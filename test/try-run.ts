import { findReadmes, readBlocks } from './readme-examples/readme-blocks.ts';
import { toModule } from './readme-examples/check-blocks.ts';
import { runBlock } from './readme-examples/run-block.ts';
import { startStandIn } from './readme-examples/stand-ins.ts';
const root = '/work/wt-docs';
const blocks = findReadmes(root).flatMap((r) => readBlocks(root, r)).filter(b => b.run);
for (const [i, b] of blocks.entries()) {
  const s = await startStandIn(b.run!, root);
  const r = await runBlock(root, toModule(b, root + '/test/x', i), { env: s.env, replace: s.replace, timeoutMs: 30000 });
  console.log('=====', b.label, r.exitCode, 'requests', s.requests);
  console.log(r.stdout); console.log(r.stderr); console.log(JSON.stringify(r.shown, null, 1));
  await s.close();
}
