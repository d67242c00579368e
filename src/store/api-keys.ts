/**
 * API key material: generation, hashing and constant-time comparison. Shared by
 * both store backends so a key created against SQLite has the same shape as one
 * created against Redis.
 *
 * A secret looks like `tsk_<43 base62 chars of randomness><6 base62 chars of CRC32>`.
 * The fixed prefix lets secret scanners (GitHub push protection, trufflehog, ...)
 * recognise leaked keys; the checksum lets them, and us, reject typos and random
 * strings of the right length without touching the store (the scheme GitHub uses
 * for its own tokens).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'tsk_';
/** Requests per UTC minute for a key created without `--rate-limit` (SPEC.md). */
export const DEFAULT_RATE_LIMIT = 20;
/** Fresh analyses per UTC month for a key created without `--monthly-limit` (SPEC.md). */
export const DEFAULT_MONTHLY_LIMIT = 1000;
const ID_PREFIX = 'key_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 43 * log2(62) ≈ 256 bits. */
const RANDOM_CHARS = 43;
const CHECKSUM_CHARS = 6;
const ID_CHARS = 16;
/** Characters of the secret kept in clear (prefix included) so a user can tell keys apart in `keys list`. */
const DISPLAY_CHARS = KEY_PREFIX.length + 8;
const SECRET_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

/** Uniform base62 string from the CSPRNG (rejection sampling: no modulo bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new secret API key, e.g. `tsk_3kF...`. Show it once; store only {@link hashSecret} of it. */
export function generateSecret(): string {
  const body = KEY_PREFIX + randomBase62(RANDOM_CHARS);
  return body + checksum(body);
}

/** A new public key id (not derived from the secret, safe to print and log). */
export function generateKeyId(): string {
  return ID_PREFIX + randomBase62(ID_CHARS);
}

/** The part of a secret shown in key listings. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_CHARS);
}

/**
 * True when `value` has the shape and a valid checksum of a key we issued. Says
 * nothing about whether the key exists; it only spares the store junk lookups.
 */
export function isWellFormedSecret(value: string): boolean {
  if (!SECRET_PATTERN.test(value)) return false;
  const cut = value.length - CHECKSUM_CHARS;
  return checksum(value.slice(0, cut)) === value.slice(cut);
}

/**
 * SHA-256 of the secret. A plain fast hash is right here, unlike for passwords:
 * the secret carries 256 random bits, so there is nothing to brute-force and a
 * slow KDF (bcrypt, scrypt) would only tax every request. It must also be
 * deterministic (no per-key salt) so the store can look a key up by its hash
 * instead of scanning and comparing every stored key.
 */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time equality of two hashes (false, not an exception, on a length mismatch). */
export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks what a caller asks for in `createKey`, so both backends refuse the same
 * inputs. Throws a RangeError/TypeError that says what was expected.
 */
export function validateKeyInput(input: { name: string; rateLimit: number; monthlyLimit: number }): void {
  if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 200) {
    throw new TypeError(`Expected the key name to be a non-empty string of at most 200 characters, got ${JSON.stringify(input.name)}`);
  }
  if (!Number.isSafeInteger(input.rateLimit) || input.rateLimit < 1) {
    throw new RangeError(`Expected the rate limit to be an integer >= 1 (requests per minute), got ${String(input.rateLimit)}`);
  }
  if (!Number.isSafeInteger(input.monthlyLimit) || input.monthlyLimit < 0) {
    throw new RangeError(`Expected the monthly limit to be an integer >= 0 (analyses per month), got ${String(input.monthlyLimit)}`);
  }
}

/** The UTC clock minute a request counts in, e.g. `2026-11-22T08:30`; sorts as text. */
export function minutePeriod(now: Date): string {
  return now.toISOString().slice(0, 16);
}

/** The UTC calendar month an analysis counts in, e.g. `2026-11`; sorts as text. */
export function monthPeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}
