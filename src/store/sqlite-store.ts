/**
 * The embedded store: one SQLite file in the data directory holds keys, usage
 * counters and the result cache. Several processes may open the same file (the
 * server and `trackscan keys`, or two servers): every write is a single
 * statement, which SQLite runs as its own transaction under the database write
 * lock, so counters stay exact without any locking of our own.
 */
import { EventEmitter } from 'node:events';

import Database from 'better-sqlite3';
import Keyv from 'keyv';

import {
  displayPrefix,
  generateKeyId,
  generateSecret,
  hashesEqual,
  hashSecret,
  isWellFormedSecret,
  minutePeriod,
  monthPeriod,
  validateKeyInput,
} from './api-keys.js';
import type { ApiKeyRecord, Store, UsageSnapshot } from './store.js';

/** Per-process bound on how often old counter and cache rows are deleted. */
const PRUNE_INTERVAL_MS = 60_000;
/** Minute rows outlive their minute a little so a usage read at :59.999 still finds its row. */
const MINUTE_ROWS_KEPT_MS = 10 * 60_000;
/** Month rows are kept for a year so a late release (reservedAt in an older month) still lands. */
const MONTH_ROWS_KEPT_MS = 400 * 24 * 3600_000;
/** How long a writer waits for another process's write lock before the call rejects with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  display_prefix TEXT NOT NULL,
  secret_hash    BLOB NOT NULL UNIQUE,
  rate_limit     INTEGER NOT NULL,
  monthly_limit  INTEGER NOT NULL,
  created_at     TEXT NOT NULL,
  revoked_at     TEXT
);
CREATE TABLE IF NOT EXISTS usage_counters (
  key_id TEXT NOT NULL,
  kind   TEXT NOT NULL CHECK (kind IN ('minute', 'month')),
  period TEXT NOT NULL,
  count  INTEGER NOT NULL,
  PRIMARY KEY (key_id, kind, period)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cache (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS cache_expires_at ON cache (expires_at) WHERE expires_at IS NOT NULL;
`;

interface KeyRow {
  id: string;
  name: string;
  display_prefix: string;
  secret_hash: Buffer;
  rate_limit: number;
  monthly_limit: number;
  created_at: string;
  revoked_at: string | null;
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    displayPrefix: row.display_prefix,
    rateLimit: row.rate_limit,
    monthlyLimit: row.monthly_limit,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function newKeyRow(input: { name: string; rateLimit: number; monthlyLimit: number }): { row: KeyRow; secret: string } {
  validateKeyInput(input);
  const secret = generateSecret();
  return {
    secret,
    row: {
      id: generateKeyId(),
      name: input.name,
      display_prefix: displayPrefix(secret),
      secret_hash: hashSecret(secret),
      rate_limit: input.rateLimit,
      monthly_limit: input.monthlyLimit,
      created_at: new Date().toISOString(),
      revoked_at: null,
    },
  };
}

/**
 * keyv storage adapter over a table of the store's own database, so the cache
 * needs no second native SQLite binding. keyv serialises `{value, expires}`
 * itself and drops expired entries on read; the adapter also keeps `expires_at`
 * so expired rows are never returned and can be deleted in bulk.
 */
export class SqliteKeyvAdapter extends EventEmitter {
  readonly opts = { dialect: 'sqlite' as const, table: 'cache' };
  namespace?: string;
  private readonly db: Database.Database;
  private readonly onWrite: () => void;
  private readonly stmts;

  /** @param onWrite called after each write; the store uses it to schedule pruning. */
  constructor(db: Database.Database, onWrite: () => void = () => {}) {
    super();
    this.db = db;
    this.onWrite = onWrite;
    this.stmts = {
      get: db.prepare<[string, number], { value: string }>(
        'SELECT value FROM cache WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)',
      ),
      set: db.prepare<[string, string, number | null]>(
        `INSERT INTO cache (key, value, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
      ),
      delete: db.prepare<[string]>('DELETE FROM cache WHERE key = ?'),
      clearPrefix: db.prepare<[{ prefix: string }]>('DELETE FROM cache WHERE substr(key, 1, length(@prefix)) = @prefix'),
      clearAll: db.prepare('DELETE FROM cache'),
    };
  }

  /** The stored (serialised) value, or undefined when absent or expired. */
  async get(key: string): Promise<string | undefined> {
    return this.stmts.get.get(key, Date.now())?.value;
  }

  /** Stores a serialised value; `ttlMs` (keyv passes milliseconds) bounds its life. */
  async set(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    const expiresAt = typeof ttlMs === 'number' && ttlMs > 0 ? Date.now() + ttlMs : null;
    this.stmts.set.run(key, typeof value === 'string' ? value : JSON.stringify(value), expiresAt);
    this.onWrite();
    return true;
  }

  /** True when an entry was deleted. */
  async delete(key: string): Promise<boolean> {
    return this.stmts.delete.run(key).changes > 0;
  }

  /** True when a live entry exists. */
  async has(key: string): Promise<boolean> {
    return this.stmts.get.get(key, Date.now()) !== undefined;
  }

  /** Deletes this namespace's entries (keyv prefixes keys with `namespace:`), or all without one. */
  async clear(): Promise<void> {
    if (this.namespace) this.stmts.clearPrefix.run({ prefix: `${this.namespace}:` });
    else this.stmts.clearAll.run();
  }

  /** The database belongs to the store, which closes it. */
  async disconnect(): Promise<void> {}
}

/**
 * {@link Store} over a SQLite file (better-sqlite3). Calls are synchronous under
 * the hood and wrapped in promises; they take microseconds, except when another
 * process holds the write lock, for at most {@link BUSY_TIMEOUT_MS}.
 */
export class SqliteStore implements Store {
  readonly cache: Keyv;
  private readonly db: Database.Database;
  private lastPruneMs = 0;
  private readonly stmts;

  /**
   * Opens (creating if needed) the database at `file`.
   * @param cacheTtlSeconds life of a cached result
   */
  constructor(file: string, cacheTtlSeconds: number) {
    this.db = new Database(file);
    try {
      // busy_timeout first: the pragmas and the schema below already contend with other processes.
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // WAL: readers never block the writer, and other processes see each commit at once.
      this.db.pragma('journal_mode = WAL');
      // NORMAL is safe with WAL: a crash of the process loses nothing; only a power cut may lose the last commits.
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(SCHEMA);
    } catch (err) {
      this.db.close();
      throw err;
    }
    const db = this.db;
    this.stmts = {
      insertKey: db.prepare<[KeyRow]>(
        `INSERT INTO api_keys (id, name, display_prefix, secret_hash, rate_limit, monthly_limit, created_at, revoked_at)
         VALUES (@id, @name, @display_prefix, @secret_hash, @rate_limit, @monthly_limit, @created_at, @revoked_at)`,
      ),
      // Conditional insert in one statement, so the emptiness check and the insert share the write lock.
      insertFirstKey: db.prepare<[KeyRow]>(
        `INSERT INTO api_keys (id, name, display_prefix, secret_hash, rate_limit, monthly_limit, created_at, revoked_at)
         SELECT @id, @name, @display_prefix, @secret_hash, @rate_limit, @monthly_limit, @created_at, @revoked_at
         WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
      ),
      listKeys: db.prepare<[], KeyRow>('SELECT * FROM api_keys ORDER BY created_at, rowid'),
      revokeKey: db.prepare<[string, string]>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      keyByHash: db.prepare<[Buffer], KeyRow>('SELECT * FROM api_keys WHERE secret_hash = ?'),
      countKeys: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM api_keys'),
      hit: db.prepare<[string, string], { count: number }>(
        `INSERT INTO usage_counters (key_id, kind, period, count) VALUES (?, 'minute', ?, 1)
         ON CONFLICT (key_id, kind, period) DO UPDATE SET count = count + 1
         RETURNING count`,
      ),
      // One statement: the check and the increment happen under the same write lock.
      // "WHERE @limit > 0" keeps a zero quota from inserting its first row; the DO UPDATE's
      // WHERE refuses at the limit, and then nothing is returned. (better-sqlite3 binds
      // named parameters, not ?NNN, hence @limit used twice.)
      reserve: db.prepare<[{ keyId: string; period: string; limit: number }], { count: number }>(
        `INSERT INTO usage_counters (key_id, kind, period, count) SELECT @keyId, 'month', @period, 1 WHERE @limit > 0
         ON CONFLICT (key_id, kind, period) DO UPDATE SET count = count + 1 WHERE count < @limit
         RETURNING count`,
      ),
      release: db.prepare<[string, string]>(
        `UPDATE usage_counters SET count = count - 1
         WHERE key_id = ? AND kind = 'month' AND period = ? AND count > 0`,
      ),
      readMinute: db.prepare<[string, string], { count: number }>(
        "SELECT count FROM usage_counters WHERE key_id = ? AND kind = 'minute' AND period = ?",
      ),
      readMonth: db.prepare<[string, string], { count: number }>(
        "SELECT count FROM usage_counters WHERE key_id = ? AND kind = 'month' AND period = ?",
      ),
      pruneCounters: db.prepare<[string, string]>(
        `DELETE FROM usage_counters WHERE (kind = 'minute' AND period < ?) OR (kind = 'month' AND period < ?)`,
      ),
      pruneCache: db.prepare<[number]>('DELETE FROM cache WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    };
    this.cache = new Keyv({
      store: new SqliteKeyvAdapter(db, () => this.maybePrune(new Date())),
      namespace: 'cache',
      ttl: cacheTtlSeconds * 1000,
      // Fail closed and visibly: a broken database is an error for the caller, not a silent miss.
      throwOnErrors: true,
    });
  }

  async createKey(input: { name: string; rateLimit: number; monthlyLimit: number }): Promise<{ record: ApiKeyRecord; secret: string }> {
    const { row, secret } = newKeyRow(input);
    this.stmts.insertKey.run(row);
    return { record: toRecord(row), secret };
  }

  async createFirstKey(input: { name: string; rateLimit: number; monthlyLimit: number }): Promise<{ record: ApiKeyRecord; secret: string } | null> {
    const { row, secret } = newKeyRow(input);
    if (this.stmts.insertFirstKey.run(row).changes === 0) return null;
    return { record: toRecord(row), secret };
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return this.stmts.listKeys.all().map(toRecord);
  }

  async revokeKey(id: string): Promise<boolean> {
    return this.stmts.revokeKey.run(new Date().toISOString(), id).changes > 0;
  }

  /**
   * Looks the key up by the SHA-256 of the presented secret. The index walk can
   * only leak how a hash the caller cannot choose compares with stored hashes,
   * which gives nothing towards a valid secret; the final check is constant-time.
   */
  async findKey(secret: string): Promise<ApiKeyRecord | null> {
    if (typeof secret !== 'string' || !isWellFormedSecret(secret)) return null;
    const hash = hashSecret(secret);
    const row = this.stmts.keyByHash.get(hash);
    if (!row || !hashesEqual(row.secret_hash, hash) || row.revoked_at !== null) return null;
    return toRecord(row);
  }

  /** All keys ever created, revoked ones included: revoking every key does not make the store "empty". */
  async countKeys(): Promise<number> {
    return this.stmts.countKeys.get()?.n ?? 0;
  }

  async hitRequest(keyId: string, now: Date): Promise<number> {
    const row = this.stmts.hit.get(keyId, minutePeriod(now));
    this.maybePrune(now);
    if (!row) throw new Error('SQLite returned no row from a counting upsert');
    return row.count;
  }

  async reserveAnalysis(keyId: string, limit: number, now: Date): Promise<boolean> {
    return this.stmts.reserve.get({ keyId, period: monthPeriod(now), limit }) !== undefined;
  }

  async releaseAnalysis(keyId: string, reservedAt: Date): Promise<void> {
    this.stmts.release.run(keyId, monthPeriod(reservedAt));
  }

  async usage(keyId: string, now: Date): Promise<UsageSnapshot> {
    // One read transaction, so both numbers come from the same snapshot.
    return this.db.transaction(() => ({
      requestsThisMinute: this.stmts.readMinute.get(keyId, minutePeriod(now))?.count ?? 0,
      analysesThisMonth: this.stmts.readMonth.get(keyId, monthPeriod(now))?.count ?? 0,
    }))();
  }

  async ping(): Promise<boolean> {
    try {
      this.db.prepare('SELECT 1').get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * Deletes counter rows no request can touch again and expired cache rows, at most
   * once a minute per process. Cut-offs follow the caller's clock (`now`), the same
   * clock the rows were written with.
   */
  private maybePrune(now: Date): void {
    const wallMs = Date.now();
    if (wallMs - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
    this.lastPruneMs = wallMs;
    const nowMs = now.getTime();
    this.stmts.pruneCounters.run(
      minutePeriod(new Date(nowMs - MINUTE_ROWS_KEPT_MS)),
      monthPeriod(new Date(nowMs - MONTH_ROWS_KEPT_MS)),
    );
    this.stmts.pruneCache.run(wallMs);
  }
}
