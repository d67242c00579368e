/**
 * Picks the store backend the way the server and `trackscan keys` both must:
 * Redis when a URL is given (REDIS_URL), else the SQLite file in the data directory.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { Store } from './store.js';

/** Default life of a cached analysis: 30 days. */
export const DEFAULT_CACHE_TTL_SECONDS = 30 * 24 * 3600;
/** Name of the SQLite file inside the data directory. */
export const SQLITE_FILE_NAME = 'trackscan.sqlite';

export interface OpenStoreOptions {
  /** Holds the SQLite file; created (mode 0700) if missing. Unused with Redis. */
  dataDir: string;
  /** `redis://` or `rediss://` URL; selects the Redis backend. */
  redisUrl?: string;
  /** Life of a cached result; default {@link DEFAULT_CACHE_TTL_SECONDS}. */
  cacheTtlSeconds?: number;
}

/**
 * Opens the store. With Redis, rejects when the server cannot be reached at
 * start (a misconfigured URL should stop the server, not degrade it).
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const cacheTtlSeconds = options.cacheTtlSeconds ?? DEFAULT_CACHE_TTL_SECONDS;
  if (!Number.isFinite(cacheTtlSeconds) || cacheTtlSeconds <= 0) {
    throw new RangeError(`Expected cacheTtlSeconds to be a positive number, got ${String(cacheTtlSeconds)}`);
  }
  if (options.redisUrl) {
    const { RedisStore } = await import('./redis-store.js');
    return RedisStore.connect(options.redisUrl, cacheTtlSeconds);
  }
  const created = mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // mkdir's mode passes through the umask; the directory holds key hashes and cached results.
  if (created !== undefined) chmodSync(options.dataDir, 0o700);
  const { SqliteStore } = await import('./sqlite-store.js');
  return new SqliteStore(join(options.dataDir, SQLITE_FILE_NAME), cacheTtlSeconds);
}
