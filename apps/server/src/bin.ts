#!/usr/bin/env node
import { runServerCommand } from './run-server-command.ts';

process.exitCode = await runServerCommand({ argv: process.argv.slice(2), env: process.env });
