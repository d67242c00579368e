/**
 * Fetching the audio behind a URL with undici, for the analyzer to stream.
 *
 * - Redirects are followed by hand (at most `maxRedirects`), and every hop
 *   goes through the SSRF guard: the URL form and IP literals in `checkUrl`,
 *   and the addresses DNS returns in the connection's own lookup.
 * - A web page is read (up to `maxPageBytes`) and resolved to the media it
 *   hosts (resolve-page.ts); the candidates are tried in order.
 * - Timeouts: connect, first byte (response headers; also the longest pause
 *   inside a body), and the whole fetch including the streamed body.
 * - The byte cap is enforced on the bytes read, whatever Content-Length says
 *   (an honest Content-Length over the cap fails before reading).
 */
import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';

import { AppError } from '../errors.js';
import { checkUrl, guardedLookup, systemLookup, type AddressPolicy, type LookupFunction } from './address-guard.js';
import { meter } from './metered.js';
import { findMediaUrls, looksLikeHtml } from './resolve-page.js';
import { fetchWithYtDlp, wantsYtDlp, type YtDlpOptions } from './ytdlp.js';

export interface DownloadOptions {
  policy: AddressPolicy;
  /** DNS resolution (tests map names to addresses with it). */
  resolve?: LookupFunction;
  maxBytes: number;
  maxPageBytes: number;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  downloadTimeoutMs: number;
  maxRedirects: number;
  userAgent?: string;
  /** Extractor sites through yt-dlp; null or absent: disabled. */
  ytdlp?: YtDlpOptions | null;
}

/** What the consumer of a media body gets. */
export interface MediaBody {
  /** The media bytes, counted against the byte cap. */
  body: AsyncIterable<Buffer>;
  /** Aborts when the body fails (413, timeout, network), for the analysis to stop at once. */
  signal: AbortSignal;
  url: string;
}

/** Candidates of a page tried before giving up. */
const MAX_PAGE_CANDIDATES = 3;

interface Opened {
  url: URL;
  response: Dispatcher.ResponseData;
}

export class Downloader {
  private readonly agent: Agent;
  private readonly options: DownloadOptions;

  constructor(options: DownloadOptions) {
    this.options = options;
    this.agent = new Agent({
      connect: {
        timeout: options.connectTimeoutMs,
        lookup: guardedLookup(options.policy, options.resolve ?? systemLookup) as never,
      },
      headersTimeout: options.firstByteTimeoutMs,
      bodyTimeout: options.firstByteTimeoutMs,
      // One connection per origin is plenty; we do not want to hold many open to strangers.
      connections: 4,
      keepAliveTimeout: 4000,
    });
  }

  /** The URL a user sent, checked (400 for a bad form or refused literal address). */
  checkUserUrl(raw: string): URL {
    return checkUrl(raw, this.options.policy);
  }

  /**
   * Fetches `url` and passes the media body to `consume` (which must read it
   * to the end or fail). Resolves to what `consume` returns.
   */
  async fetchMedia<T>(url: URL, signal: AbortSignal, consume: (media: MediaBody) => Promise<T>): Promise<T> {
    const timeout = AbortSignal.timeout(this.options.downloadTimeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    try {
      if (wantsYtDlp(url, this.options.ytdlp)) {
        return await fetchWithYtDlp(
          url,
          {
            ...this.options.ytdlp!,
            maxBytes: this.options.maxBytes,
            policy: this.options.policy,
            ...(this.options.resolve ? { resolve: this.options.resolve } : {}),
            signal: combined,
          },
          consume,
        );
      }
      const first = await this.open(url, combined);
      if (!(await this.isPage(first))) return await this.consumeMedia(first, combined, consume);
      const html = await this.readPage(first);
      const candidates = findMediaUrls(html, first.url.toString());
      if (candidates.length === 0) throw new AppError('upstream_failed', 'The page holds no playable media (no og:audio/og:video, <audio>, <video>, <source> or JSON-LD contentUrl)');
      let lastError: AppError | null = null;
      for (const candidate of candidates.slice(0, MAX_PAGE_CANDIDATES)) {
        // A refused candidate address fails the request: the page pointed us somewhere we must not go.
        const target = checkUrl(candidate, this.options.policy, { redirect: true });
        try {
          const next = await this.open(target, combined);
          if (await this.isPage(next)) {
            next.response.body.destroy();
            lastError = new AppError('upstream_failed', 'The media link of the page leads to another page, not to media');
            continue;
          }
          return await this.consumeMedia(next, combined, consume);
        } catch (err) {
          const mapped = mapError(err, signal, timeout, this.options.downloadTimeoutMs);
          // A dead link or a format we do not read (e.g. an embedded player) is not the end: try the next.
          if (mapped instanceof AppError && (mapped.code === 'unsupported_media_type' || mapped.code === 'upstream_failed')) {
            lastError = mapped;
            continue;
          }
          throw mapped;
        }
      }
      throw lastError ?? new AppError('upstream_failed', 'The page holds no playable media');
    } catch (err) {
      throw mapError(err, signal, timeout, this.options.downloadTimeoutMs);
    }
  }

  /** Sends GET requests, following redirects by hand through the guard. */
  private async open(start: URL, signal: AbortSignal): Promise<Opened> {
    let url = start;
    for (let hop = 0; ; hop++) {
      const response = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        signal,
        headers: {
          'user-agent': this.options.userAgent ?? 'trackscan (+https://github.com/trackscan)',
          accept: 'audio/*, video/*, application/ogg, text/html;q=0.8, */*;q=0.5',
        },
      });
      if (response.statusCode >= 300 && response.statusCode < 400 && response.statusCode !== 304) {
        await response.body.dump().catch(() => undefined);
        const location = response.headers.location;
        const target = Array.isArray(location) ? location[0] : location;
        if (!target) throw new AppError('upstream_failed', `The server answered ${response.statusCode} without a Location`);
        if (hop >= this.options.maxRedirects) throw new AppError('upstream_failed', `More than ${this.options.maxRedirects} redirects`);
        let next: string;
        try {
          next = new URL(target, url).toString();
        } catch {
          throw new AppError('upstream_failed', 'The server redirected to an invalid URL');
        }
        url = checkUrl(next, this.options.policy, { redirect: true });
        continue;
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        await response.body.dump().catch(() => undefined);
        throw new AppError('upstream_failed', `The server answered ${response.statusCode} for ${url.host}`);
      }
      return { url, response };
    }
  }

  private peeked = new WeakMap<Opened, Buffer>();

  /** Reads the first bytes to tell a page from media (kept for the consumer). */
  private async isPage(opened: Opened): Promise<boolean> {
    const type = headerText(opened.response.headers['content-type']);
    const iterator = opened.response.body[Symbol.asyncIterator]();
    const first = await iterator.next();
    const head: Buffer = first.done ? Buffer.alloc(0) : Buffer.from(first.value as Uint8Array);
    this.peeked.set(opened, head);
    (opened as { rest?: AsyncIterator<Buffer> }).rest = iterator;
    return looksLikeHtml(type, head);
  }

  private async *bodyOf(opened: Opened): AsyncGenerator<Buffer> {
    const head = this.peeked.get(opened);
    if (head && head.length > 0) yield head;
    const rest = (opened as { rest?: AsyncIterator<Buffer> }).rest;
    if (!rest) return;
    while (true) {
      const next = await rest.next();
      if (next.done) return;
      yield Buffer.from(next.value);
    }
  }

  private async readPage(opened: Opened): Promise<string> {
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of this.bodyOf(opened)) {
      const room = this.options.maxPageBytes - length;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      length += Math.min(room, chunk.length);
      // The head of a page holds its metadata: a huge page is read in part, not refused.
      if (length >= this.options.maxPageBytes) break;
    }
    opened.response.body.destroy();
    return Buffer.concat(chunks).toString('utf8');
  }

  private async consumeMedia<T>(opened: Opened, signal: AbortSignal, consume: (media: MediaBody) => Promise<T>): Promise<T> {
    const declared = Number(headerText(opened.response.headers['content-length']));
    if (Number.isFinite(declared) && declared > this.options.maxBytes) {
      opened.response.body.destroy();
      throw new AppError('payload_too_large', `The media at ${opened.url.host} is ${declared} bytes; the limit is ${this.options.maxBytes}`);
    }
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const metered = meter(this.bodyOf(opened), { maxBytes: this.options.maxBytes, what: 'The download', controller });
    try {
      return await consume({ body: metered.stream, signal: controller.signal, url: opened.url.toString() });
    } catch (err) {
      throw metered.failure ?? err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      opened.response.body.destroy();
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Maps network failures to 502/504, keeps AppErrors (the guard's included). */
function mapError(err: unknown, signal: AbortSignal, timeout: AbortSignal, timeoutMs: number): unknown {
  if (signal.aborted) return signal.reason ?? err;
  if (err instanceof AppError) return err;
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return cause;
  if (timeout.aborted) return new AppError('upstream_timeout', `The download did not finish within ${timeoutMs / 1000} s`, { cause: err });
  const code = (err as { code?: string })?.code ?? (cause as { code?: string } | undefined)?.code;
  if (code && TIMEOUT_CODES.has(code)) {
    const what = code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : code === 'UND_ERR_HEADERS_TIMEOUT' ? 'answer' : 'send more data';
    return new AppError('upstream_timeout', `The server did not ${what} in time`, { cause: err });
  }
  if (err instanceof undiciErrors.UndiciError || (err as NodeJS.ErrnoException)?.syscall || code) {
    return new AppError('upstream_failed', `The URL could not be fetched (${code ?? 'network error'})`, { cause: err });
  }
  return err;
}
