import { describe, expect, it } from 'vitest';
import { displayHost, resolveOllamaHost } from './ollama-host.ts';

describe('resolveOllamaHost', () => {
  it('defaults to http://127.0.0.1:11434 without host or OLLAMA_HOST', () => {
    expect(resolveOllamaHost(undefined, {})).toBe('http://127.0.0.1:11434');
  });

  it('reads OLLAMA_HOST, and an explicit host wins over it', () => {
    expect(resolveOllamaHost(undefined, { OLLAMA_HOST: 'http://gpu-box:11434' })).toBe('http://gpu-box:11434');
    expect(resolveOllamaHost('http://other:1234', { OLLAMA_HOST: 'http://gpu-box:11434' })).toBe('http://other:1234');
  });

  it('normalises the forms the ollama client accepts', () => {
    expect(resolveOllamaHost('localhost', {})).toBe('http://localhost:11434');
    expect(resolveOllamaHost(':8080', {})).toBe('http://127.0.0.1:8080');
    expect(resolveOllamaHost('https://ollama.example.com/', {})).toBe('https://ollama.example.com:443');
    expect(resolveOllamaHost('http://127.0.0.1:11434/', {})).toBe('http://127.0.0.1:11434');
  });

  it('keeps credentials in the URL but not in what messages show', () => {
    const host = resolveOllamaHost('https://user:secret@proxy.example.com:8443', {});
    expect(host).toBe('https://user:secret@proxy.example.com:8443');
    expect(displayHost(host)).toBe('https://proxy.example.com:8443');
  });
});
