import { ConcurrencyLimiter } from './concurrency-limiter.ts';
import { InvalidToolDefinitionError } from './errors.ts';
import { globMatch } from './glob-match.ts';
import { TokenBucket } from './token-bucket.ts';
import { isValidToolName, TOOL_NAME_RULE } from './tool-name.ts';
import type { RateLimit, TakeResult } from './token-bucket.ts';
import type { Tool } from './types/tool.ts';

/** Options of `ToolRegistry`. */
export interface ToolRegistryOptions {
  tools?: readonly Tool<unknown>[];
  /**
   * Allowed tool names per principal, with `*` globs (`['search', 'files.*']`). The key
   * `'*'` applies to principals not listed and to calls without a principal. Without
   * `permissions`, everyone may call every tool.
   */
  permissions?: Record<string, readonly string[]>;
  /**
   * Token-bucket limits keyed by tool name or glob (`{ 'search': { capacity: 5,
   * refillPerSecond: 1 } }`), counted separately for each principal and tool. An exact
   * name wins over globs; globs are tried in the order given.
   */
  rateLimits?: Record<string, RateLimit>;
  /** How many tool calls may run at once through this registry (default: unlimited). */
  maxConcurrency?: number;
  /** The clock in ms, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Buckets kept at most; past it the one at the front of the sweep order is forgotten. */
const MAX_BUCKETS = 100_000;
/** Buckets at the front of the sweep order checked for expiry on each call: constant work per call. */
const SWEEP_PER_CALL = 2;

/**
 * The tools a server can run, with who may call what, how often, and how many at once.
 * `executeToolCall` enforces all of it.
 *
 * @example
 * const registry = new ToolRegistry({
 *   tools: [search, readFile],
 *   permissions: { admin: ['*'], '*': ['search'] },
 *   rateLimits: { search: { capacity: 10, refillPerSecond: 1 } },
 *   maxConcurrency: 8,
 * });
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool<unknown>>();
  readonly #permissions = new Map<string, readonly string[]>();
  #restricted: boolean;
  readonly #rateLimits: [pattern: string, limit: RateLimit][];
  readonly #buckets = new Map<string, TokenBucket>();
  readonly #limiter: ConcurrencyLimiter | undefined;
  readonly #now: () => number;

  constructor(options: ToolRegistryOptions = {}) {
    for (const tool of options.tools ?? []) this.register(tool);
    this.#restricted = options.permissions !== undefined;
    for (const [principal, patterns] of Object.entries(options.permissions ?? {})) this.#permissions.set(principal, [...patterns]);
    this.#rateLimits = Object.entries(options.rateLimits ?? {});
    for (const [pattern, limit] of this.#rateLimits) checkRateLimit(pattern, limit);
    this.#limiter = options.maxConcurrency === undefined ? undefined : new ConcurrencyLimiter(options.maxConcurrency);
    this.#now = options.now ?? Date.now;
  }

  /** Adds a tool. Throws `InvalidToolDefinitionError` when the name is taken or breaks `TOOL_NAME_RULE`. */
  register<TArgs, TResult>(tool: Tool<TArgs, TResult>): this {
    // Tools built without defineTool (plain objects) meet the same name rule.
    if (!isValidToolName(tool.name, { dots: true })) {
      throw new InvalidToolDefinitionError({
        toolName: String(tool.name),
        problem: `the name must be ${TOOL_NAME_RULE.description}; "." is allowed too for namespaced tools.`,
      });
    }
    if (this.#tools.has(tool.name)) {
      throw new InvalidToolDefinitionError({
        toolName: tool.name,
        problem: 'a tool with this name is already registered. Give it another name or call unregister() first.',
      });
    }
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** Removes a tool; returns whether it was there. */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The tool with this name, whoever asks (permissions are checked by `isAllowed`). */
  get(name: string): Tool<unknown> | undefined {
    return this.#tools.get(name);
  }

  /** The tools `principal` may call, in registration order. */
  list(principal?: string): Tool<unknown>[] {
    return [...this.#tools.values()].filter((tool) => this.isAllowed(tool.name, principal));
  }

  /** Whether `principal` (or an anonymous caller) may call the tool `name`. */
  isAllowed(name: string, principal?: string): boolean {
    if (!this.#restricted) return true;
    const patterns = (principal !== undefined ? this.#permissions.get(principal) : undefined) ?? this.#permissions.get('*') ?? [];
    return patterns.some((pattern) => globMatch(pattern, name));
  }

  /**
   * Replaces the allowed names of one principal (`'*'`: everyone not listed). On a registry
   * created without `permissions`, this restricts every other principal to nothing.
   */
  setPermissions(principal: string, patterns: readonly string[]): void {
    // The first permission closes an open registry to everyone not given one.
    this.#restricted = true;
    this.#permissions.set(principal, [...patterns]);
  }

  /**
   * Spends one call of `principal`'s rate limit for the tool `name` (always allowed when no
   * limit applies). Each call checks the two buckets at the front of a rotating order and
   * forgets them once refilled (an idle bucket is the same as a new one), so memory follows
   * the principals active within a refill period and the work per call is constant however
   * many principals were seen. At most 100 000 buckets are kept.
   */
  takeRateLimit(name: string, principal?: string): TakeResult {
    const limit = this.#rateLimitOf(name);
    if (!limit) return { allowed: true };
    const now = this.#now();
    const key = `${principal ?? ''}\u0000${name}`;
    let bucket = this.#buckets.get(key);
    if (bucket) {
      // Re-insert to move it to the back of the sweep order (the Map's insertion order).
      this.#buckets.delete(key);
    } else {
      bucket = new TokenBucket(limit, now);
    }
    this.#buckets.set(key, bucket);
    const result = bucket.take(now);
    this.#sweep(now);
    return result;
  }

  /** How many rate-limit buckets are held now (for tests and metrics). */
  get rateLimitBuckets(): number {
    return this.#buckets.size;
  }

  /** Waits for a concurrency slot; resolves with its release function. */
  acquireSlot(signal?: AbortSignal): Promise<() => void> {
    if (!this.#limiter) return Promise.resolve(noop);
    return this.#limiter.acquire(signal);
  }

  /** Tool calls running now and waiting for a slot (zeros without a concurrency limit). */
  get load(): { active: number; waiting: number } {
    return { active: this.#limiter?.active ?? 0, waiting: this.#limiter?.waiting ?? 0 };
  }

  #rateLimitOf(name: string): RateLimit | undefined {
    let globMatchLimit: RateLimit | undefined;
    for (const [pattern, limit] of this.#rateLimits) {
      if (pattern === name) return limit;
      if (!globMatchLimit && pattern.includes('*') && globMatch(pattern, name)) globMatchLimit = limit;
    }
    return globMatchLimit;
  }

  #sweep(now: number): void {
    for (let checked = 0; checked < SWEEP_PER_CALL; checked++) {
      const oldest = this.#buckets.entries().next();
      if (oldest.done === true) return;
      const [key, bucket] = oldest.value;
      this.#buckets.delete(key);
      // A bucket still draining goes to the back, so one that never refills (a rate of 0)
      // cannot keep the sweep from reaching the others.
      if (this.#buckets.size < MAX_BUCKETS && !bucket.isFull(now)) this.#buckets.set(key, bucket);
    }
  }
}

function noop(): void {
  // Nothing to release without a concurrency limit.
}

function checkRateLimit(pattern: string, limit: RateLimit): void {
  if (!(limit.capacity >= 1) || !(limit.refillPerSecond >= 0) || !Number.isFinite(limit.refillPerSecond)) {
    throw new RangeError(
      `Rate limit "${pattern}" needs capacity >= 1 and a finite refillPerSecond >= 0, got ${JSON.stringify(limit)}.`,
    );
  }
}
