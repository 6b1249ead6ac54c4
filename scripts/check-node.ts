// Fails early, with a fix, when a script runs on a Node without the features we use.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Toolwire's scripts need Node 24 (found ${process.versions.node}). ` +
      'Run them through pnpm (`pnpm install` then `pnpm <script>`): the workspace brings Node 24 as a dev dependency.',
  );
  process.exit(1);
}
