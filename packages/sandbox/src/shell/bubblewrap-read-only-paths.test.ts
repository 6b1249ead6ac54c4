import { describe, expect, it } from 'vitest';
import { buildBubblewrapArgs } from './bubblewrap-args.ts';
import type { BubblewrapArgsOptions } from './bubblewrap-args.ts';

// Built with only the fields every version of the options has, plus readOnlyPaths.
const base = {
  command: ['node', 'server.js'],
  root: '/srv/ws',
  cwd: '/srv/ws',
  env: {},
  network: false,
  tmpSizeBytes: 1024,
  shmSizeBytes: 1024,
  hostEntries: [],
  etcPaths: [],
} as BubblewrapArgsOptions;

describe('buildBubblewrapArgs with readOnlyPaths', () => {
  it('binds each path read-only after /tmp, then the root again so it stays writable', () => {
    const args = buildBubblewrapArgs({ ...base, readOnlyPaths: ['/opt/node', '/tmp/code'] });
    const tmp = args.lastIndexOf('/tmp');
    const node = args.indexOf('/opt/node');
    expect(args.slice(node - 1, node + 2)).toEqual(['--ro-bind', '/opt/node', '/opt/node']);
    expect(args.indexOf('/tmp/code')).toBeGreaterThan(tmp);
    const lastBind = args.lastIndexOf('--bind');
    expect(args.slice(lastBind, lastBind + 3)).toEqual(['--bind', '/srv/ws', '/srv/ws']);
    expect(lastBind).toBeGreaterThan(args.indexOf('/tmp/code'));
    expect(args.slice(args.lastIndexOf('--') + 1)).toEqual(['node', 'server.js']);
  });

  it('adds nothing without them', () => {
    const args = buildBubblewrapArgs(base);
    expect(args.filter((arg) => arg === '--bind')).toHaveLength(1);
    expect(args).not.toContain('/opt/node');
  });
});
