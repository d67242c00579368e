/**
 * The shared store: keys, counters and the result cache in Redis, so several
 * server processes see the same keys, the same counts and the same cache.
 *
 * Counting is atomic on the server (INCR inside MULTI, check-and-increment in a
 * Lua script), so no client-side lock is needed across processes. The client
 * fails closed: while Redis is unreachable every call rejects at once (no offline
 * queue), and a call Redis does not answer rejects after {@link COMMAND_TIMEOUT_MS};
 * it never answers "allowed" on its own. A call that timed out may still have
 * been applied when Redis catches up: a request counted in its minute although it
 * was refused, never the reverse (a late monthly reservation is given back).
 *
 * Layout (under the prefix `trackscan:`; key records are kept, counters and cache entries expire):
 *   key:<id>                hash   id, name, displayPrefix, secretHash (hex SHA-256), rateLimit,
 *                                  monthlyLimit, createdAt, revokedAt ('' while live)
 *   keyhash:<sha256 hex>    string the key id, for lookup by hash
 *   keys                    list   key ids in creation order
 *   rpm:<id>:<YYYY-MM-DDTHH:MM>  string requests in that UTC minute, expires after 120 s
 *   apm:<id>:<YYYY-MM>      string analyses in that UTC month, expires a month after it ends
 *   cache::<cache key>      string keyv entry (JSON), expires with its TTL
 */
import { createHash } from 'node:crypto';

import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { createClient } from 'redis';

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

/**
 * Bound on any one store call, so a hung Redis (paused, overloaded, half-open TCP)
 * turns into an error instead of a hung request. node-redis's own command timeout
 * only covers the wait before a command is written, not the wait for its reply.
 */
const COMMAND_TIMEOUT_MS = 2000;
const CONNECT_TIMEOUT_MS = 2000;
/**
 * Retries before the first connection is given up, about 4.5 s with the back-off below: long
 * enough for a Redis started alongside the service, short enough for a wrong URL to fail fast.
 * Later outages are retried for ever.
 */
const INITIAL_CONNECT_RETRIES = 8;
/** Minute counters outlive their minute a little so a usage read at :59.999 still finds its key. */
const MINUTE_COUNTER_TTL_SECONDS = 120;
/** Month counters live a month past their month so a late release (reservedAt in the old month) still lands. */
const MONTH_COUNTER_GRACE_SECONDS = 31 * 24 * 3600;

const RESERVE_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('EXPIREAT', KEYS[1], ARGV[2])
return 1`;

// DECR would take a missing (expired) counter to -1; never go below zero.
const RELEASE_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

// KEYS: record, hash index, key list. ARGV: only-if-empty flag, id, then the record's field/value pairs.
const CREATE_SCRIPT = `
if ARGV[1] == '1' and redis.call('LLEN', KEYS[3]) > 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('SET', KEYS[2], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[2])
return 1`;

const REVOKE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'revokedAt') ~= '' then return 0 end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
return 1`;

type RedisClient = ReturnType<typeof createClient>;

interface Script {
  source: string;
  sha1: string;
}

function script(source: string): Script {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

const SCRIPTS = {
  reserve: script(RESERVE_SCRIPT),
  release: script(RELEASE_SCRIPT),
  create: script(CREATE_SCRIPT),
  revoke: script(REVOKE_SCRIPT),
};

function toRecord(hash: Record<string, string>): ApiKeyRecord {
  return {
    id: hash.id ?? '',
    name: hash.name ?? '',
    displayPrefix: hash.displayPrefix ?? '',
    rateLimit: Number(hash.rateLimit),
    monthlyLimit: Number(hash.monthlyLimit),
    createdAt: hash.createdAt ?? '',
    revokedAt: hash.revokedAt ? hash.revokedAt : null,
  };
}

/** Unix time (seconds) at which a month counter for `now`'s month may go. */
function monthCounterExpiry(now: Date): number {
  const nextMonthMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.floor(nextMonthMs / 1000) + MONTH_COUNTER_GRACE_SECONDS;
}

/** A store call that Redis did not answer in time. */
export class RedisTimeoutError extends Error {
  readonly code = 'ERR_STORE_TIMEOUT';
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/** `work`, or a RedisTimeoutError once `ms` pass; `work` itself runs on (its outcome is then ignored). */
async function withDeadline<T>(work: Promise<T>, ms = COMMAND_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(ms)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @keyv/redis connects a client that is not open on the next call, which after
 * close() would quietly open a new connection (and keep the process alive). We own
 * the client's life: node-redis reconnects it during outages, and once closed it
 * stays closed.
 */
class SharedClientKeyvRedis extends KeyvRedis<unknown> {
  override async getClient(): ReturnType<KeyvRedis<unknown>['getClient']> {
    if (!this.client.isOpen) throw new Error('The Redis store is closed');
    return this.client;
  }

  // The same deadline as every other store call: a cache that hangs would hold requests.
  override async get<U>(key: string): Promise<U | undefined> {
    return withDeadline(super.get<U>(key));
  }

  override async set(key: string, value: string, ttl?: number): Promise<void> {
    return withDeadline(super.set(key, value, ttl));
  }

  override async delete(key: string): Promise<boolean> {
    return withDeadline(super.delete(key));
  }

  override async has(key: string): Promise<boolean> {
    return withDeadline(super.has(key));
  }
}

/** {@link Store} over Redis (node-redis 5, @keyv/redis for the cache). */
export class RedisStore implements Store {
  readonly cache: Keyv;
  private readonly client: RedisClient;
  private readonly prefix: string;

  private constructor(client: RedisClient, cacheTtlSeconds: number, prefix: string) {
    this.client = client;
    this.prefix = prefix;
    const namespace = `${prefix}cache`;
    const adapter = new SharedClientKeyvRedis(client as never, { namespace, throwOnErrors: true, throwOnConnectError: true });
    this.cache = new Keyv({
      store: adapter,
      namespace,
      // The adapter prefixes keys with its namespace already.
      useKeyPrefix: false,
      ttl: cacheTtlSeconds * 1000,
      throwOnErrors: true,
    });
  }

  /**
   * Connects to `url` and returns the store. Rejects when no connection is made
   * within a few seconds, so a wrong REDIS_URL stops the server at start.
   * @param prefix namespace for every Redis key this store touches
   */
  static async connect(url: string, cacheTtlSeconds: number, prefix = 'trackscan:'): Promise<RedisStore> {
    let connectedOnce = false;
    let client: RedisClient | undefined;
    try {
      client = createClient({
        url,
        // Fail closed: a command issued while disconnected rejects now instead of waiting in a queue.
        disableOfflineQueue: true,
        socket: {
          connectTimeout: CONNECT_TIMEOUT_MS,
          reconnectStrategy: (retries: number, cause: Error) => {
            if (!connectedOnce && retries >= INITIAL_CONNECT_RETRIES) return cause;
            // Short, capped back-off: the service should recover soon after Redis returns.
            return Math.min(50 * 2 ** retries, 1000);
          },
        },
      });
      // node-redis emits 'error' on every socket failure; without a listener that would crash the
      // process. Commands reject on their own, which is where failures are reported.
      client.on('error', () => {});
      client.on('ready', () => {
        connectedOnce = true;
      });
      await client.connect();
    } catch (err) {
      if (client?.isOpen) client.destroy();
      throw new Error(`Cannot connect to Redis at ${redactUrl(url)}: ${(err as Error).message}`, { cause: err });
    }
    return new RedisStore(client, cacheTtlSeconds, prefix);
  }

  private keyRecordKey(id: string): string {
    return `${this.prefix}key:${id}`;
  }

  private keyHashKey(hash: Buffer): string {
    return `${this.prefix}keyhash:${hash.toString('hex')}`;
  }

  /** Key ids in creation order (a list: keys are never deleted, and listing keeps their order). */
  private get keyIndexKey(): string {
    return `${this.prefix}keys`;
  }

  private minuteKey(keyId: string, now: Date): string {
    return `${this.prefix}rpm:${keyId}:${minutePeriod(now)}`;
  }

  private monthKey(keyId: string, now: Date): string {
    return `${this.prefix}apm:${keyId}:${monthPeriod(now)}`;
  }

  /** EVALSHA, loading the script with EVAL when the server has not seen it (restart, SCRIPT FLUSH). */
  private async run(s: Script, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.client.evalSha(s.sha1, { keys, arguments: args });
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return this.client.eval(s.source, { keys, arguments: args });
    }
  }

  async createKey(input: { name: string; rateLimit: number; monthlyLimit: number }): Promise<{ record: ApiKeyRecord; secret: string }> {
    const created = await this.insertKey(input, false);
    if (!created) throw new Error('Redis refused to create the key');
    return created;
  }

  async createFirstKey(input: { name: string; rateLimit: number; monthlyLimit: number }): Promise<{ record: ApiKeyRecord; secret: string } | null> {
    return this.insertKey(input, true);
  }

  /** Writes record, hash index and list entry in one script: all or nothing, and atomically conditional. */
  private async insertKey(
    input: { name: string; rateLimit: number; monthlyLimit: number },
    onlyIfEmpty: boolean,
  ): Promise<{ record: ApiKeyRecord; secret: string } | null> {
    validateKeyInput(input);
    const secret = generateSecret();
    const hash = hashSecret(secret);
    const record: ApiKeyRecord = {
      id: generateKeyId(),
      name: input.name,
      displayPrefix: displayPrefix(secret),
      rateLimit: input.rateLimit,
      monthlyLimit: input.monthlyLimit,
      createdAt: new Date().toISOString(),
      revokedAt: null,
    };
    const fields = {
      id: record.id,
      name: record.name,
      displayPrefix: record.displayPrefix,
      secretHash: hash.toString('hex'),
      rateLimit: String(record.rateLimit),
      monthlyLimit: String(record.monthlyLimit),
      createdAt: record.createdAt,
      revokedAt: '',
    };
    const reply = await withDeadline(
      this.run(
        SCRIPTS.create,
        [this.keyRecordKey(record.id), this.keyHashKey(hash), this.keyIndexKey],
        [onlyIfEmpty ? '1' : '0', record.id, ...Object.entries(fields).flat()],
      ),
    );
    return reply === 1 ? { record, secret } : null;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const ids = await withDeadline(this.client.lRange(this.keyIndexKey, 0, -1));
    const hashes = await withDeadline(Promise.all(ids.map((id) => this.client.hGetAll(this.keyRecordKey(id)))));
    return hashes.filter((h) => h.id !== undefined).map((h) => toRecord(h));
  }

  async revokeKey(id: string): Promise<boolean> {
    return (await withDeadline(this.run(SCRIPTS.revoke, [this.keyRecordKey(id)], [new Date().toISOString()]))) === 1;
  }

  /**
   * Looks the key up by the SHA-256 of the presented secret, then compares the
   * stored hash in constant time. Nothing is cached between calls, so a revoked
   * key is refused by every process from the next request on.
   */
  async findKey(secret: string): Promise<ApiKeyRecord | null> {
    if (typeof secret !== 'string' || !isWellFormedSecret(secret)) return null;
    const hash = hashSecret(secret);
    const id = await withDeadline(this.client.get(this.keyHashKey(hash)));
    if (id === null) return null;
    const stored = await withDeadline(this.client.hGetAll(this.keyRecordKey(id)));
    if (!stored.secretHash || !hashesEqual(Buffer.from(stored.secretHash, 'hex'), hash)) return null;
    if (stored.revokedAt) return null;
    return toRecord(stored);
  }

  /** All keys ever created, revoked ones included. */
  async countKeys(): Promise<number> {
    return withDeadline(this.client.lLen(this.keyIndexKey));
  }

  async hitRequest(keyId: string, now: Date): Promise<number> {
    const key = this.minuteKey(keyId, now);
    const [count] = await withDeadline(this.client.multi().incr(key).expire(key, MINUTE_COUNTER_TTL_SECONDS).exec());
    return Number(count);
  }

  async reserveAnalysis(keyId: string, limit: number, now: Date): Promise<boolean> {
    const reservation = this.run(SCRIPTS.reserve, [this.monthKey(keyId, now)], [String(limit), String(monthCounterExpiry(now))]).then(
      (reply) => reply === 1,
    );
    try {
      return await withDeadline(reservation);
    } catch (err) {
      // The caller sees a failure and will not release; if Redis granted the reservation after
      // all, give it back, so a failed request consumes no quota.
      if (err instanceof RedisTimeoutError) {
        reservation.then((granted) => (granted ? this.releaseAnalysis(keyId, now) : undefined)).catch(() => {});
      }
      throw err;
    }
  }

  async releaseAnalysis(keyId: string, reservedAt: Date): Promise<void> {
    await withDeadline(this.run(SCRIPTS.release, [this.monthKey(keyId, reservedAt)], []));
  }

  async usage(keyId: string, now: Date): Promise<UsageSnapshot> {
    const [minute, month] = await withDeadline(this.client.mGet([this.minuteKey(keyId, now), this.monthKey(keyId, now)]));
    return { requestsThisMinute: Number(minute ?? 0), analysesThisMonth: Number(month ?? 0) };
  }

  async ping(): Promise<boolean> {
    try {
      return (await withDeadline(this.client.ping())) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (!this.client.isOpen) return;
    try {
      // close() waits for the replies in flight; a hung server would hold shutdown for ever.
      await withDeadline(this.client.close());
    } catch {
      if (this.client.isOpen) this.client.destroy();
    }
  }
}

/** The URL without its password, for messages and logs. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
