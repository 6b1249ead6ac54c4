import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliUsageError } from './cli-error.ts';
import { mcpServerFor, parseMcpServerSpec } from './mcp-server-spec.ts';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolwire-mcp-spec-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('parseMcpServerSpec', () => {
  it('splits a command line at whitespace with quotes, never through a shell', () => {
    expect(parseMcpServerSpec(`node  './my server.js' --root "a b" $HOME;rm`)).toEqual({
      type: 'command',
      argv: ['node', './my server.js', '--root', 'a b', '$HOME;rm'],
    });
    expect(parseMcpServerSpec('x ""')).toEqual({ type: 'command', argv: ['x', ''] });
  });

  it('reads http(s) URLs as servers to reach', () => {
    expect(parseMcpServerSpec(' http://127.0.0.1:3000/mcp ')).toEqual({ type: 'url', url: 'http://127.0.0.1:3000/mcp' });
  });

  it('refuses an empty spec and an unclosed quote as usage errors', () => {
    expect(() => parseMcpServerSpec('  ')).toThrow(CliUsageError);
    expect(() => parseMcpServerSpec('node "x')).toThrow(/Unclosed "/);
  });
});

describe('mcpServerFor', () => {
  it('runs a command in the current directory and binds the node_modules above it and its program read-only', () => {
    const project = join(base, 'project', 'app');
    mkdirSync(join(base, 'project', 'node_modules'), { recursive: true });
    mkdirSync(join(base, 'bin'));
    mkdirSync(project, { recursive: true });
    symlinkSync('/bin/sh', join(base, 'bin', 'my-server'));
    const server = mcpServerFor({ type: 'command', argv: ['my-server', '--flag'] }, { cwd: project, path: `/nonexistent:${join(base, 'bin')}` });
    expect(server).toEqual({
      command: realpathSync('/bin/sh'),
      args: ['--flag'],
      cwd: project,
      readOnlyPaths: [join(base, 'project', 'node_modules')],
    });
  });

  it('keeps a program it cannot find as it is, for the sandbox to report', () => {
    expect(mcpServerFor({ type: 'command', argv: ['no-such-server'] }, { cwd: base, path: '/nonexistent' })).toMatchObject({ command: 'no-such-server', args: [] });
  });

  it('lets only a loopback URL reach loopback', () => {
    expect(mcpServerFor({ type: 'url', url: 'http://localhost:3000/mcp' }, { cwd: base, path: undefined })).toEqual({ url: 'http://localhost:3000/mcp', allowPrivateNetwork: true });
    expect(mcpServerFor({ type: 'url', url: 'https://mcp.example.com/mcp' }, { cwd: base, path: undefined })).toEqual({ url: 'https://mcp.example.com/mcp', allowPrivateNetwork: false });
  });
});
