import { createWriteStream, openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { InvalidToolConfigError } from '@toolwire/core';
import { toFile } from 'openai';
import type OpenAI from 'openai';
import { emitEvent } from '../events.ts';
import type { CodeInterpreterEventHandler } from '../events.ts';
import { assertContainerId, assertFileIds, assertMemoryLimit } from './container-config.ts';
import { toContainerExpiredError } from './expired-container.ts';
import type { MemoryLimit } from './memory-limit.ts';
import { checkUploadFile, DEFAULT_MAX_UPLOAD_BYTES } from './supported-upload-files.ts';

/** A container as Toolwire reports it. */
export interface ContainerInfo {
  id: string;
  name: string;
  /** `'running'`, `'expired'`, … as OpenAI says. */
  status: string;
  memoryLimit: MemoryLimit | undefined;
  createdAt: number;
  lastActiveAt: number | undefined;
}

/** A file inside a container. */
export interface ContainerFileInfo {
  id: string;
  containerId: string;
  /** Path inside the container, e.g. `/mnt/data/report.csv`. */
  path: string;
  bytes: number;
  /** `'user'` (uploaded) or `'assistant'` (written by the code). */
  source: string;
  createdAt: number;
}

/** Options of `ContainerClient.create`. */
export interface CreateContainerOptions {
  /** Default `'toolwire-code-interpreter'`. */
  name?: string;
  /** Memory tier, fixed for the container's life. Default `'1g'`. */
  memoryLimit?: MemoryLimit;
  /** Files (`file-…`) to copy in. */
  fileIds?: string[];
  /** Minutes without use before it expires (OpenAI allows at most 20). */
  expiresAfterMinutes?: number;
  signal?: AbortSignal;
}

/** A file to upload: a path on disk, or bytes with a file name. */
export type UploadSource =
  | { path: string; filename?: string; mimeType?: string }
  | { data: Uint8Array | Blob; filename: string; mimeType?: string };

/** OpenAI containers through the `openai` SDK, with expiry mapped to `ContainerExpiredError`. */
export interface ContainerClient {
  /** Creates a container with a memory tier. */
  create(options?: CreateContainerOptions): Promise<ContainerInfo>;
  /** Reads a container's metadata; an expired one keeps answering with `status: 'expired'`. Refreshes the idle timer. */
  retrieve(containerId: string): Promise<ContainerInfo>;
  /** Uploads a file after checking its extension, MIME type and size; throws `UnsupportedUploadError` before sending otherwise. */
  upload(containerId: string, source: UploadSource): Promise<ContainerFileInfo>;
  /** Lists every file in the container (all pages). */
  listFiles(containerId: string): Promise<ContainerFileInfo[]>;
  /** Streams a file's content. */
  stream(containerId: string, fileId: string): Promise<ReadableStream<Uint8Array>>;
  /** Writes a file's content to `to` and returns the bytes written. */
  download(containerId: string, fileId: string, options: { to: string }): Promise<{ path: string; bytes: number }>;
  /** Deletes a container. */
  delete(containerId: string): Promise<void>;
}

/** Options of `createContainerClient`. */
export interface ContainerClientOptions {
  /** An `openai` SDK client (`new OpenAI({ apiKey })`). */
  client: OpenAI;
  /** Reports created, expired and deleted containers and uploads. */
  onEvent?: CodeInterpreterEventHandler;
  /** Largest upload accepted. Default 512 MiB. */
  maxUploadBytes?: number;
}

const TOOL_NAME = 'code_interpreter';

function toMemoryLimit(value: unknown): MemoryLimit | undefined {
  return value === '1g' || value === '4g' || value === '16g' || value === '64g' ? value : undefined;
}

function toContainerInfo(raw: OpenAI.Containers.ContainerRetrieveResponse): ContainerInfo {
  return {
    id: raw.id,
    name: raw.name,
    status: raw.status,
    memoryLimit: toMemoryLimit(raw.memory_limit),
    createdAt: raw.created_at,
    lastActiveAt: raw.last_active_at,
  };
}

function toFileInfo(raw: OpenAI.Containers.FileRetrieveResponse): ContainerFileInfo {
  return {
    id: raw.id,
    containerId: raw.container_id,
    path: raw.path,
    bytes: raw.bytes,
    source: raw.source,
    createdAt: raw.created_at,
  };
}

/**
 * Creates, fills, reads and deletes OpenAI containers for the code interpreter.
 *
 * @example
 * const containers = createContainerClient({ client: new OpenAI() });
 * const { id } = await containers.create({ memoryLimit: '4g' });
 * await containers.upload(id, { path: './sales.csv' });
 * const tool = openAICodeInterpreter({ container: id });
 */
export function createContainerClient(options: ContainerClientOptions): ContainerClient {
  const { client, onEvent, maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES } = options;

  async function call<T>(containerId: string | undefined, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const expired = toContainerExpiredError(error, containerId);
      if (expired === undefined) throw error;
      emitEvent(onEvent, { type: 'container-expired', containerId: expired.containerId });
      throw expired;
    }
  }

  async function contentOf(containerId: string, fileId: string): Promise<ReadableStream<Uint8Array>> {
    assertContainerId(containerId, TOOL_NAME);
    const response = await call(containerId, () => client.containers.files.content.retrieve(fileId, { container_id: containerId }));
    if (response.body === null) {
      throw new InvalidToolConfigError({ toolName: TOOL_NAME, problem: `file ${fileId} of ${containerId} came back without content.` });
    }
    return response.body;
  }

  return {
    async create(createOptions = {}) {
      const { name = 'toolwire-code-interpreter', memoryLimit = '1g', fileIds, expiresAfterMinutes, signal } = createOptions;
      assertMemoryLimit(memoryLimit, TOOL_NAME);
      if (fileIds !== undefined) assertFileIds(fileIds, TOOL_NAME);
      if (expiresAfterMinutes !== undefined && (!Number.isInteger(expiresAfterMinutes) || expiresAfterMinutes < 1 || expiresAfterMinutes > 20)) {
        throw new InvalidToolConfigError({
          toolName: TOOL_NAME,
          problem: `expiresAfterMinutes must be a whole number from 1 to 20 (OpenAI's maximum), got ${String(expiresAfterMinutes)}.`,
        });
      }
      const body: OpenAI.Containers.ContainerCreateParams = { name, memory_limit: memoryLimit };
      if (fileIds !== undefined && fileIds.length > 0) body.file_ids = fileIds;
      if (expiresAfterMinutes !== undefined) body.expires_after = { anchor: 'last_active_at', minutes: expiresAfterMinutes };
      const created = await client.containers.create(body, signal === undefined ? undefined : { signal });
      const info = toContainerInfo(created);
      // OpenAI may omit memory_limit in the answer; the tier asked for is the one it has.
      info.memoryLimit ??= memoryLimit;
      emitEvent(onEvent, { type: 'container-created', containerId: info.id, name: info.name, memoryLimit: info.memoryLimit });
      return info;
    },

    async retrieve(containerId) {
      assertContainerId(containerId, TOOL_NAME);
      const info = toContainerInfo(await call(containerId, () => client.containers.retrieve(containerId)));
      if (info.status === 'expired') emitEvent(onEvent, { type: 'container-expired', containerId });
      return info;
    },

    async upload(containerId, source) {
      assertContainerId(containerId, TOOL_NAME);
      let file: File;
      if ('path' in source) {
        const filename = source.filename ?? basename(source.path);
        const { size } = await stat(source.path);
        const type = checkUploadFile({ filename, bytes: size, mimeType: source.mimeType, maxBytes: maxUploadBytes });
        file = await toFile(await openAsBlob(source.path, { type }), filename, { type });
      } else {
        const size = source.data instanceof Blob ? source.data.size : source.data.byteLength;
        const type = checkUploadFile({ filename: source.filename, bytes: size, mimeType: source.mimeType, maxBytes: maxUploadBytes });
        file = await toFile(source.data, source.filename, { type });
      }
      const created = toFileInfo(await call(containerId, () => client.containers.files.create(containerId, { file })));
      emitEvent(onEvent, { type: 'file-uploaded', containerId, fileId: created.id, filename: file.name, bytes: created.bytes });
      return created;
    },

    async listFiles(containerId) {
      assertContainerId(containerId, TOOL_NAME);
      return call(containerId, async () => {
        const files: ContainerFileInfo[] = [];
        for await (const file of client.containers.files.list(containerId, { limit: 100 })) files.push(toFileInfo(file));
        return files;
      });
    },

    stream: contentOf,

    async download(containerId, fileId, downloadOptions) {
      const body = await contentOf(containerId, fileId);
      let bytes = 0;
      const source = Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
      source.on('data', (chunk: Uint8Array) => {
        bytes += chunk.byteLength;
      });
      await pipeline(source, createWriteStream(downloadOptions.to));
      return { path: downloadOptions.to, bytes };
    },

    async delete(containerId) {
      assertContainerId(containerId, TOOL_NAME);
      await call(containerId, () => client.containers.delete(containerId));
      emitEvent(onEvent, { type: 'container-deleted', containerId });
    },
  };
}
