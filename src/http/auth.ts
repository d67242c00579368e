/**
 * API key authentication and the per-minute rate limit.
 *
 * Rate-limit headers: we send the RateLimit-Limit / RateLimit-Remaining /
 * RateLimit-Reset trio (draft-ietf-httpapi-ratelimit-headers, the form most
 * clients and proxies already read) on every authenticated answer, errors
 * included:
 *   RateLimit-Limit      requests allowed per UTC clock minute for this key
 *   RateLimit-Remaining  requests left in the current minute (never negative)
 *   RateLimit-Reset      seconds until the current minute ends (1..60)
 * A 429 adds Retry-After: for rate_limited the seconds to the next minute,
 * for quota_exceeded the seconds to the next UTC month. Requests refused
 * with rate_limited still count in their minute (usage shows what arrived),
 * so a client that keeps hammering stays refused until the minute ends.
 *
 * Keys are never logged: the request log carries the key's public id only.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { AppError } from '../errors.js';
import type { ApiKeyRecord, Store } from '../store/store.js';

export const API_KEY_HEADER = 'x-api-key';

/** Seconds until the current UTC minute ends: 1..60. */
export function secondsToNextMinute(now: Date): number {
  return 60 - now.getUTCSeconds();
}

/** Seconds until the next UTC calendar month begins. */
export function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/**
 * Runs a store operation; a failing store fails the request closed (503
 * unavailable) instead of letting it through unlimited.
 */
export async function guardStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('unavailable', 'The key and usage store is not reachable; try again shortly', { cause: err, retryAfterSeconds: 5 });
  }
}

/** The authenticated key of this request (set by `authenticate`). */
export function apiKeyOf(res: Response): ApiKeyRecord {
  const key = res.locals.apiKey as ApiKeyRecord | undefined;
  if (!key) throw new Error('route reached without authentication');
  return key;
}

/**
 * Checks X-API-Key, counts the request in the key's current minute and sets
 * the rate-limit headers; 401 for a missing/unknown/revoked key, 429 once the
 * minute's allowance is spent.
 */
export function authenticate(store: Store, now: () => Date = () => new Date()): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const secret = req.get(API_KEY_HEADER)?.trim();
    if (!secret) throw new AppError('missing_api_key', 'Send your API key in the X-API-Key header');
    const key = await guardStore(() => store.findKey(secret));
    if (!key) throw new AppError('invalid_api_key', 'The API key is unknown or has been revoked');
    res.locals.apiKey = key;
    res.locals.log = res.locals.log?.child({ keyId: key.id });
    const at = now();
    const count = await guardStore(() => store.hitRequest(key.id, at));
    const reset = secondsToNextMinute(at);
    res.setHeader('RateLimit-Limit', String(key.rateLimit));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, key.rateLimit - count)));
    res.setHeader('RateLimit-Reset', String(reset));
    if (count > key.rateLimit) {
      throw new AppError('rate_limited', `This key allows ${key.rateLimit} requests per minute; the limit resets in ${reset} s`, {
        retryAfterSeconds: reset,
      });
    }
    next();
  };
}
