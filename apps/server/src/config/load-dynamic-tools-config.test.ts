import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServerCommand } from '../run-server-command.ts';
import { loadServerConfig } from './load-server-config.ts';

async function configFile(content: unknown): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'toolwire-dynamic-'));
  const file = join(dir, 'toolwire.json');
  await writeFile(file, JSON.stringify(content));
  return { dir, file };
}

describe('mcpServers and openApi in the config file', () => {
  it("resolves their paths against the file's directory; a bare command stays for the sandbox's PATH", async () => {
    const { dir, file } = await configFile({
      mcpServers: {
        local: { command: './bin/server', cwd: 'work', readOnlyPaths: ['mcp', '/opt/node'] },
        onPath: { command: 'node', args: ['./kept-as-written.js'] },
      },
      openApi: { pets: { document: 'specs/pets.yaml' } },
    });
    const command = await loadServerConfig({ argv: ['--config', file], env: {} });
    if (command.kind !== 'serve') throw new Error('expected serve');
    expect(command.config.mcpServers).toEqual({
      local: { command: join(dir, 'bin/server'), cwd: join(dir, 'work'), readOnlyPaths: [join(dir, 'mcp'), '/opt/node'] },
      onPath: { command: 'node', args: ['./kept-as-written.js'] },
    });
    expect(command.config.openApi).toEqual({ pets: { document: join(dir, 'specs/pets.yaml') } });
  });

  it('exits 2 naming the setting when a secret it names is missing from the environment', async () => {
    const { file } = await configFile({ openApi: { pets: { document: 'pets.json', auth: { type: 'bearer', tokenEnv: 'PETS_TOKEN' } } } });
    const errors: string[] = [];
    const code = await runServerCommand({ argv: ['--config', file], env: {}, printError: (text) => errors.push(text) });
    expect(code).toBe(2);
    expect(errors.join('\n')).toContain('openApi.pets.auth.tokenEnv: the environment variable PETS_TOKEN is not set');
  });
});
