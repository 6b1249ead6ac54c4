import { raceAbort } from '@toolwire/core/provider';
import { isRecord } from '../auth/jwt.ts';
import type { ChatGPTCredentials } from '../auth/chatgpt-auth.ts';
import type { ChatGPTReasoningEffort } from '../chatgpt-settings.ts';
import type { ChatGPTLogger } from '../logger.ts';
import { trimTrailingSlashes } from '../url.ts';
import { FALLBACK_INSTRUCTIONS } from './fallback-instructions.ts';
import { backendHeaders } from './request-headers.ts';
import type { ChatGPTResidency } from './request-headers.ts';

/** One model of the account's catalog (`GET {baseURL}/codex/models`). */
export interface CatalogModel {
  slug: string;
  baseInstructions?: string;
  /** `default_reasoning_level`: what Codex sends when the user set no effort. */
  defaultEffort?: ChatGPTReasoningEffort;
  /** `supported_reasoning_levels[].effort`. */
  supportedEfforts?: ChatGPTReasoningEffort[];
}

/** The instructions to send for a model, and where they came from. */
export interface ResolvedInstructions {
  instructions: string;
  source: 'catalog' | 'fallback';
  /** The model's catalog entry, when the catalog lists it. */
  model?: CatalogModel;
}

/** Reads the account's model catalog, cached per account and revalidated by ETag. */
export interface ModelCatalog {
  instructionsFor(modelId: string, credentials: ChatGPTCredentials, signal?: AbortSignal): Promise<ResolvedInstructions>;
  /** The slugs of the last catalog read for the account, if any. */
  knownModels(accountId: string): readonly string[] | undefined;
}

interface CacheEntry {
  etag: string | undefined;
  models: CatalogModel[];
  checkedAt: number;
}

/**
 * A catalog reader. A failed read falls back to the cached catalog, then to bundled
 * instructions, so a request never fails because the catalog is unavailable.
 */
/** How long one catalog read may take: it is optional, and every caller of the account waits for it. */
const DEFAULT_CATALOG_TIMEOUT_MS = 15_000;

export function createModelCatalog(options: {
  baseURL: string;
  fetch: typeof globalThis.fetch;
  clientVersion: string;
  /** How long a catalog is used before it is revalidated (default 5 minutes). */
  ttlMs?: number;
  /** How long one read may take before the bundled instructions are used (default 15 s). */
  timeoutMs?: number;
  logger: ChatGPTLogger;
  residency?: ChatGPTResidency | undefined;
}): ModelCatalog {
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CATALOG_TIMEOUT_MS;
  const cache = new Map<string, CacheEntry>();
  const pending = new Map<string, Promise<CacheEntry | undefined>>();

  // Shared by every caller that asks while it runs: no caller's signal stops it (its own timeout
  // does), and each caller stops waiting on its own signal.
  async function load(credentials: ChatGPTCredentials): Promise<CacheEntry | undefined> {
    const cached = cache.get(credentials.accountId);
    if (cached !== undefined && Date.now() - cached.checkedAt < ttlMs) return cached;
    const url = `${trimTrailingSlashes(options.baseURL)}/codex/models?client_version=${encodeURIComponent(options.clientVersion)}`;
    const headers = backendHeaders({ credentials, clientVersion: options.clientVersion, accept: 'application/json', residency: options.residency });
    if (cached?.etag !== undefined) headers['if-none-match'] = cached.etag;
    try {
      const response = await options.fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
      if (response.status === 304 && cached !== undefined) {
        await response.body?.cancel();
        const refreshed = { ...cached, checkedAt: Date.now() };
        cache.set(credentials.accountId, refreshed);
        return refreshed;
      }
      if (!response.ok) {
        await response.body?.cancel();
        options.logger.debug?.(`The ChatGPT model catalog answered HTTP ${response.status}; using ${cached ? 'the cached catalog' : 'bundled instructions'}.`);
        return cached;
      }
      const entry: CacheEntry = { etag: response.headers.get('etag') ?? undefined, models: parseCatalog(await response.json()), checkedAt: Date.now() };
      cache.set(credentials.accountId, entry);
      return entry;
    } catch {
      options.logger.debug?.('The ChatGPT model catalog could not be read; using bundled instructions.');
      return cached;
    }
  }

  return {
    async instructionsFor(modelId, credentials, signal) {
      let request = pending.get(credentials.accountId);
      if (request === undefined) {
        request = load(credentials).finally(() => pending.delete(credentials.accountId));
        pending.set(credentials.accountId, request);
      }
      const entry = await (signal === undefined ? request : raceAbort(request, signal));
      const model = entry?.models.find((candidate) => candidate.slug === modelId);
      const found = model !== undefined ? { model } : {};
      if (model?.baseInstructions !== undefined && model.baseInstructions !== '') return { instructions: model.baseInstructions, source: 'catalog', ...found };
      return { instructions: FALLBACK_INSTRUCTIONS, source: 'fallback', ...found };
    },
    knownModels(accountId) {
      return cache.get(accountId)?.models.map((model) => model.slug);
    },
  };
}

function parseCatalog(payload: unknown): CatalogModel[] {
  const list = Array.isArray(payload) ? payload : isRecord(payload) && Array.isArray(payload.models) ? payload.models : [];
  const models: CatalogModel[] = [];
  for (const item of list as unknown[]) {
    if (!isRecord(item) || typeof item.slug !== 'string') continue;
    const model: CatalogModel = { slug: item.slug };
    if (typeof item.base_instructions === 'string') model.baseInstructions = item.base_instructions;
    if (isEffort(item.default_reasoning_level)) model.defaultEffort = item.default_reasoning_level;
    if (Array.isArray(item.supported_reasoning_levels)) {
      const efforts: ChatGPTReasoningEffort[] = [];
      for (const level of item.supported_reasoning_levels as unknown[]) {
        const effort = isRecord(level) ? level.effort : level;
        if (isEffort(effort)) efforts.push(effort);
      }
      if (efforts.length > 0) model.supportedEfforts = efforts;
    }
    models.push(model);
  }
  return models;
}

const EFFORTS: readonly string[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

function isEffort(value: unknown): value is ChatGPTReasoningEffort {
  return typeof value === 'string' && EFFORTS.includes(value);
}
