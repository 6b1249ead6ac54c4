#!/usr/bin/env node
import { exitQuietlyOnBrokenPipe } from './broken-pipe.ts';
import { main } from './main.ts';

exitQuietlyOnBrokenPipe([process.stdout, process.stderr], (code) => process.exit(code));
process.exitCode = await main(process.argv);
// The command is done (`serve` drained, `chat` flushed its telemetry or gave up at the OTLP
// timeout). A retry that an OpenTelemetry exporter scheduled after a collector's
// `Retry-After` would still hold the event loop; it may not keep a finished command alive.
setTimeout(() => process.exit(), 1_000).unref();
