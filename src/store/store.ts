/**
 * What the HTTP layer needs from storage: API keys, atomic usage counters and
 * the result cache. Two implementations: SQLite in the data directory (the
 * embedded default) and Redis (when REDIS_URL is set, shared by instances).
 */
import type Keyv from 'keyv';

export interface ApiKeyRecord {
  /** Public id, used by `trackscan keys revoke ID`; never the secret. */
  id: string;
  name: string;
  /** The first characters of the key, for recognising it in lists. */
  displayPrefix: string;
  rateLimit: number;
  monthlyLimit: number;
  createdAt: string;
  revokedAt: string | null;
}

export interface UsageSnapshot {
  requestsThisMinute: number;
  analysesThisMonth: number;
}

export interface Store {
  createKey(input: { name: string; rateLimit: number; monthlyLimit: number }): Promise<{ record: ApiKeyRecord; secret: string }>;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** false when no such key or already revoked. */
  revokeKey(id: string): Promise<boolean>;
  /** The live (not revoked) key whose secret this is, or null. Compares hashes in constant time. */
  findKey(secret: string): Promise<ApiKeyRecord | null>;
  countKeys(): Promise<number>;
  /**
   * Creates a key only when the store holds none (revoked ones included), atomically
   * across processes: for the first start's key, so two instances starting together on
   * one store do not both create one. null when a key exists already.
   */
  createFirstKey?(input: { name: string; rateLimit: number; monthlyLimit: number }): Promise<{ record: ApiKeyRecord; secret: string } | null>;

  /** Counts one request in the current UTC minute atomically; returns the count including this one. */
  hitRequest(keyId: string, now: Date): Promise<number>;
  /**
   * Reserves one analysis in the current UTC month if fewer than `limit` are counted,
   * atomically. Returns false when the quota is used up.
   */
  reserveAnalysis(keyId: string, limit: number, now: Date): Promise<boolean>;
  /** Gives back a reservation whose analysis failed or was served from the cache. */
  releaseAnalysis(keyId: string, reservedAt: Date): Promise<void>;
  usage(keyId: string, now: Date): Promise<UsageSnapshot>;

  /** The result cache (keyv on the same backend), entries expire after their TTL. */
  readonly cache: Keyv;
  /** Liveness of the backend, for /health. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
