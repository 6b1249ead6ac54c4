#!/usr/bin/env node
import { runServerCommand } from './run-server-command.ts';

process.exitCode = await runServerCommand({ argv: process.argv.slice(2), env: process.env });
// The command is done (for `serve`: drained, state closed, telemetry flushed or cut at the
// drain deadline). A retry that an OpenTelemetry exporter scheduled after a collector's
// `Retry-After` would still hold the event loop; it may not keep a stopped gateway alive.
setTimeout(() => process.exit(), 1_000).unref();
