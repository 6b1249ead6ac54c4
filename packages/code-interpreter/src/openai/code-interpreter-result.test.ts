import { readFileSync } from 'node:fs';
import type { ProviderToolContext } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import type { CodeInterpreterValue } from '../code-interpreter-value.ts';
import { codeInterpreterResult } from './code-interpreter-result.ts';
import { annotationsFromResponseOutput, containerFilesFromAnnotations } from './container-file-citations.ts';

function fixture(name: string): any {
  return JSON.parse(readFileSync(new URL(`../__fixtures__/${name}`, import.meta.url), 'utf8'));
}

const openaiResponse = fixture('openai-code-interpreter-tool.1.json');
const azureResponse = fixture('azure-code-interpreter-tool.1.json');
const imageTurns = fixture('pydantic-ai-return-image.interactions.json');

function contextFor(response: any, toolCallId: string): ProviderToolContext {
  return {
    toolCallId,
    toolName: 'code_interpreter',
    provider: 'openai',
    modelId: response.model,
    annotations: annotationsFromResponseOutput(response.output),
  };
}

function calls(response: { output: any[] }): any[] {
  return response.output.filter((item) => item.type === 'code_interpreter_call');
}

describe('codeInterpreterResult on recorded responses', () => {
  it('turns a call with logs into a successful result whose message is the logs', () => {
    const [first] = calls(openaiResponse);
    const result = codeInterpreterResult(first, contextFor(openaiResponse, first.id));
    expect(result.success).toBe(true);
    expect(result.providerExecuted).toBe(true);
    expect(result.name).toBe('code_interpreter');
    expect(result.toolCallId).toBe(first.id);
    expect(result.message).toContain('(10000, 70024)');
    const value = result.value as CodeInterpreterValue;
    expect(value.code).toBe(first.code);
    expect(value.containerId).toBe('cntr_6903bf2c0470819090b2b1e63e0b66800c139a5d654a42ec');
    expect(value.outputs).toEqual([{ type: 'logs', logs: '(10000, 70024)' }]);
    expect(value.stdout).toBe('(10000, 70024)');
    expect(value.stderr).toBe('');
    expect(value.status).toBe('completed');
  });

  it('lists the files cited in the same response for the call container', () => {
    const [first] = calls(openaiResponse);
    const value = codeInterpreterResult(first, contextFor(openaiResponse, first.id)).value as CodeInterpreterValue;
    expect(value.files).toEqual([
      {
        containerId: 'cntr_6903bf2c0470819090b2b1e63e0b66800c139a5d654a42ec',
        fileId: 'cfile_6903bf45e3288191af3d56e6d23c3a4d',
        filename: 'two_dice_sums_10000.txt',
      },
    ]);
  });

  it('says that a silent failure may hide a Python error (the recorded NameError comes back as completed with no outputs)', () => {
    const second = calls(openaiResponse)[1];
    expect(second.outputs).toEqual([]);
    const result = codeInterpreterResult(second, { ...contextFor(openaiResponse, second.id), annotations: [] });
    expect(result.success).toBe(true);
    expect(result.message).toContain('does not report Python errors');
    expect((result.value as CodeInterpreterValue).outputs).toEqual([]);
  });

  it('keeps data-URL images as image outputs and names them in the message', () => {
    const response = imageTurns[0].response;
    const [call] = calls(response);
    const result = codeInterpreterResult(call, contextFor(response, call.id));
    const value = result.value as CodeInterpreterValue;
    const images = value.outputs.filter((o) => o.type === 'image');
    expect(images).toHaveLength(1);
    expect(images[0]).toMatchObject({ type: 'image' });
    expect((images[0] as { url: string }).url.startsWith('data:image/png;base64,iVBOR')).toBe(true);
    expect(value.stdout).toBe("'/mnt/data/y_equals_x_squared.png'");
    expect(result.message).toContain('[1 image]');
    expect(value.files.map((f) => f.filename)).toEqual(['cfile_68cdc395fb4c8191b644bc65a5529a72.png', 'y_equals_x_squared.png']);
    expect(result.message).toContain('[files: cfile_68cdc395fb4c8191b644bc65a5529a72.png, y_equals_x_squared.png]');
  });

  it('maps the second turn of a multi-turn conversation the same way', () => {
    const response = imageTurns[1].response;
    const [call] = calls(response);
    const result = codeInterpreterResult(call, contextFor(response, call.id));
    expect(result.success).toBe(true);
    expect((result.value as CodeInterpreterValue).files.length).toBeGreaterThan(0);
    // The replayed call in the second request carries outputs: null.
    const replayed = imageTurns[1].request.input.find((item: any) => item.type === 'code_interpreter_call');
    expect(replayed.outputs).toBeNull();
    const replayedResult = codeInterpreterResult(replayed, contextFor(response, replayed.id));
    expect((replayedResult.value as CodeInterpreterValue).outputs).toEqual([]);
  });

  it('maps an Azure recording (logs, no citation)', () => {
    const [call] = calls(azureResponse);
    const result = codeInterpreterResult(call, contextFor(azureResponse, call.id));
    expect(result.success).toBe(true);
    expect((result.value as CodeInterpreterValue).files).toEqual([]);
    expect(result.message).toBe((result.value as CodeInterpreterValue).stdout);
  });

  it('marks failed and incomplete calls as unsuccessful execution errors', () => {
    const [call] = calls(openaiResponse);
    for (const status of ['failed', 'incomplete']) {
      const result = codeInterpreterResult({ ...call, status }, { ...contextFor(openaiResponse, call.id), annotations: [] });
      expect(result.success).toBe(false);
      expect(result.error).toEqual({ type: 'execution_error', message: `The code interpreter call ended with status "${status}".` });
    }
  });

  it('answers an unrecognised payload with a failed result instead of throwing', () => {
    const result = codeInterpreterResult({ type: 'web_search_call' }, contextFor(openaiResponse, 'x'));
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('execution_error');
  });

  it('skips output entries of unknown types', () => {
    const [call] = calls(openaiResponse);
    const result = codeInterpreterResult(
      { ...call, outputs: [{ type: 'files', files: [] }, { type: 'logs', logs: 'ok' }], extra_key: 1 },
      { ...contextFor(openaiResponse, call.id), annotations: [] },
    );
    expect((result.value as CodeInterpreterValue).outputs).toEqual([{ type: 'logs', logs: 'ok' }]);
  });
});

describe('containerFilesFromAnnotations', () => {
  const a = { type: 'container_file_citation', container_id: 'cntr_a', file_id: 'cfile_1', filename: 'x.png', start_index: 0, end_index: 0 };
  it('dedupes by container and file id and keeps first-seen order', () => {
    const b = { ...a, file_id: 'cfile_2', filename: 'y.csv' };
    expect(containerFilesFromAnnotations([a, b, { ...a, start_index: 9 }]).map((f) => f.fileId)).toEqual(['cfile_1', 'cfile_2']);
  });
  it('filters by container and ignores other annotation types and junk', () => {
    const other = { ...a, container_id: 'cntr_b' };
    const url = { type: 'url_citation', url: 'https://example.com' };
    expect(containerFilesFromAnnotations([a, other, url, null, 'x'], 'cntr_b')).toEqual([
      { containerId: 'cntr_b', fileId: 'cfile_1', filename: 'x.png' },
    ]);
  });
  it('falls back to the file id when the filename is missing', () => {
    const { filename: _filename, ...noName } = a;
    expect(containerFilesFromAnnotations([noName])[0]?.filename).toBe('cfile_1');
  });
});
