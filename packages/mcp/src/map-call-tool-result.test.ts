import { describe, expect, it } from 'vitest';
import { mapCallToolResult } from './map-call-tool-result.ts';

const options = { maxMessageChars: 1000 };

describe('mapCallToolResult', () => {
  it('joins text blocks into the message and keeps the blocks as the value', () => {
    const content = [
      { type: 'text' as const, text: 'line one' },
      { type: 'text' as const, text: 'line two' },
    ];
    expect(mapCallToolResult({ content }, options)).toMatchObject({ success: true, message: 'line one\nline two', value: { content } });
  });

  it('describes images, audio, links and blobs with placeholders and keeps their data in the value', () => {
    const image = { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    const output = mapCallToolResult(
      {
        content: [
          image,
          { type: 'audio', data: 'A'.repeat(4096), mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'mem://note', text: 'embedded note' } },
          { type: 'resource', resource: { uri: 'mem://bin', mimeType: 'application/zip', blob: 'UEsDBA==' } },
        ],
      },
      options,
    );
    expect(output.message).toBe(
      '[image: image/png, 8 bytes]\n[audio: audio/wav, 3.0 KiB]\n[resource link: a.txt file:///a.txt (text/plain)]\nembedded note\n[resource: mem://bin, application/zip, 4 bytes]',
    );
    expect((output.value as { content: unknown[] }).content[0]).toEqual(image);
  });

  it('uses structuredContent as the message when there is no text, and keeps it in the value', () => {
    const output = mapCallToolResult({ content: [], structuredContent: { celsius: 21 } }, options);
    expect(output).toMatchObject({ success: true, message: '{"celsius":21}', value: { content: [], structuredContent: { celsius: 21 } } });
  });

  it('maps isError to a failed execution_error output the model can read', () => {
    const output = mapCallToolResult({ content: [{ type: 'text', text: 'city not found: Atlantis' }], isError: true }, options);
    expect(output).toMatchObject({ success: false, errorType: 'execution_error', message: 'city not found: Atlantis' });
    expect(mapCallToolResult({ content: [], isError: true }, options).message).toBe('The tool failed without saying why.');
  });

  it('cuts a long message and says how much was cut', () => {
    const output = mapCallToolResult({ content: [{ type: 'text', text: 'x'.repeat(1500) }] }, options);
    expect(output.message).toBe(`${'x'.repeat(1000)}\n[… 500 more characters cut]`);
  });

  it("accepts an old server's bare toolResult", () => {
    expect(mapCallToolResult({ toolResult: { ok: true } }, options)).toMatchObject({ success: true, message: '{"ok":true}' });
  });
});
