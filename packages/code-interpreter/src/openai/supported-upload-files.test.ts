import { describe, expect, it } from 'vitest';
import { UnsupportedUploadError } from '../errors.ts';
import { checkUploadFile } from './supported-upload-files.ts';

function rejection(run: () => unknown): UnsupportedUploadError {
  try {
    run();
  } catch (error) {
    if (UnsupportedUploadError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected UnsupportedUploadError');
}

describe('checkUploadFile', () => {
  it('accepts supported extensions, case-insensitively, and returns the MIME type to send', () => {
    expect(checkUploadFile({ filename: 'sales.csv', bytes: 10 })).toBe('text/csv');
    expect(checkUploadFile({ filename: 'dir/Plot.PNG', bytes: 10 })).toBe('image/png');
    expect(checkUploadFile({ filename: 'model.pkl', bytes: 10 })).toBe('application/octet-stream');
  });

  it('accepts either MIME type where OpenAI lists two', () => {
    expect(checkUploadFile({ filename: 'a.csv', bytes: 1, mimeType: 'application/csv' })).toBe('application/csv');
    expect(checkUploadFile({ filename: 'a.xml', bytes: 1, mimeType: 'text/xml; charset=utf-8' })).toBe('text/xml');
  });

  it('rejects unsupported extensions and files without one, naming what is supported', () => {
    const exe = rejection(() => checkUploadFile({ filename: 'tool.exe', bytes: 1 }));
    expect(exe.reason).toBe('extension');
    expect(exe.message).toContain('".exe" files');
    expect(exe.message).toContain('.csv');
    expect(rejection(() => checkUploadFile({ filename: 'Makefile', bytes: 1 })).message).toContain('files without an extension');
    expect(rejection(() => checkUploadFile({ filename: '.csv', bytes: 1 })).reason).toBe('extension');
    expect(rejection(() => checkUploadFile({ filename: 'notebook.ipynb', bytes: 1 })).reason).toBe('extension');
  });

  it('rejects a MIME type that does not match the extension', () => {
    const error = rejection(() => checkUploadFile({ filename: 'a.csv', bytes: 1, mimeType: 'image/png' }));
    expect(error.reason).toBe('mime-type');
    expect(error.message).toContain('text/csv or application/csv');
  });

  it('rejects files over the size limit', () => {
    expect(rejection(() => checkUploadFile({ filename: 'a.csv', bytes: 11, maxBytes: 10 })).reason).toBe('size');
    expect(checkUploadFile({ filename: 'a.csv', bytes: 10, maxBytes: 10 })).toBe('text/csv');
  });

  it('does not treat inherited object keys as extensions', () => {
    expect(rejection(() => checkUploadFile({ filename: 'x.constructor', bytes: 1 })).reason).toBe('extension');
  });
});
