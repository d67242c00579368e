/**
 * Result-cache keys. A key names everything the answer depends on: the
 * audio (the SHA-256 of an upload's bytes, or the normalised URL), the detect
 * switches and details flag, and the analyzer version, so a new engine never
 * serves an old result and a request for fewer values never gets more.
 * URLs are hashed too: keys stay short and a signed URL's token is not
 * written into the store in clear.
 */
import { createHash } from 'node:crypto';

import type { AnalysisSwitches } from '../analysis/types.js';

const KEY_SCHEMA = 'v1';

/**
 * The form of a URL used for caching: WHATWG parsing (lower-case scheme and
 * host, IDN to punycode, default port dropped, dot segments resolved,
 * IPv4 numbers canonical), no fragment (never sent to a server), no empty
 * query. Query order is kept: servers may give it meaning.
 */
export function normaliseUrl(raw: string | URL): string {
  const url = new URL(raw.toString());
  url.hash = '';
  // An empty query reads back as '' yet prints as '?'; assigning '' drops it.
  if (url.search === '') url.search = '';
  return url.toString();
}

function switchesTag(s: AnalysisSwitches): string {
  return `${s.detectBpm ? 'b' : '-'}${s.detectKey ? 'k' : '-'}${s.detectHz ? 'h' : '-'}${s.details ? 'd' : '-'}`;
}

/** Cache key of an upload whose bytes hash to `sha256Hex`. */
export function uploadCacheKey(sha256Hex: string, switches: AnalysisSwitches, analyzerVersion: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256Hex)) throw new RangeError(`expected a SHA-256 hex digest, got "${sha256Hex}"`);
  return `analysis:${KEY_SCHEMA}:${analyzerVersion}:${switchesTag(switches)}:file:${sha256Hex}`;
}

/** Cache key of a URL analysis (the URL as the user sent it, normalised). */
export function urlCacheKey(url: string | URL, switches: AnalysisSwitches, analyzerVersion: string): string {
  const digest = createHash('sha256').update(normaliseUrl(url)).digest('hex');
  return `analysis:${KEY_SCHEMA}:${analyzerVersion}:${switchesTag(switches)}:url:${digest}`;
}
