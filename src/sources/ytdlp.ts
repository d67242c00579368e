/**
 * Sites whose pages hold no plain media link (YouTube, SoundCloud, ...) go
 * through yt-dlp when it is installed and enabled (TRACKSCAN_YTDLP). yt-dlp
 * writes the best audio stream to its standard output, which streams into
 * the analyzer like any download: same byte cap (counted here), same
 * whole-download timeout, ended on abort.
 *
 * The SSRF guard: the URL's host must be one of the configured extractor
 * hosts (public sites by definition) and must resolve to public addresses
 * before yt-dlp starts. yt-dlp then makes its own connections (to the site's
 * API and CDN hosts), which this process cannot route through the guard;
 * that is why it only runs for the listed hosts.
 */
import { spawn } from 'node:child_process';

import { AppError } from '../errors.js';
import { guardedLookup, systemLookup, type AddressPolicy, type LookupFunction } from './address-guard.js';
import type { MediaBody } from './download.js';
import { meter } from './metered.js';

export interface YtDlpOptions {
  /** The yt-dlp executable. */
  path: string;
  /** Hosts (and their subdomains) sent to yt-dlp. */
  hosts: readonly string[];
}

/** Default extractor hosts: sites that need yt-dlp and publish music. */
export const DEFAULT_YTDLP_HOSTS = ['youtube.com', 'youtu.be', 'music.youtube.com', 'soundcloud.com', 'bandcamp.com', 'mixcloud.com', 'vimeo.com'];

/** Whether `url` should go through yt-dlp under `options`. */
export function wantsYtDlp(url: URL, options: YtDlpOptions | null | undefined): boolean {
  if (!options) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return options.hosts.some((h) => host === h || host.endsWith(`.${h}`));
}

const MAX_LOG_BYTES = 16 * 1024;

/**
 * Runs yt-dlp for `url` and hands its output to `consume`. Rejects with 400
 * url_not_allowed (host resolves to a refused address), 413 (over the byte
 * cap), 502 upstream_failed (yt-dlp failed or produced nothing), or the
 * signal's reason.
 */
export async function fetchWithYtDlp<T>(
  url: URL,
  options: YtDlpOptions & { maxBytes: number; policy: AddressPolicy; resolve?: LookupFunction; signal: AbortSignal },
  consume: (media: MediaBody) => Promise<T>,
): Promise<T> {
  const lookup = guardedLookup(options.policy, options.resolve ?? systemLookup);
  await new Promise<void>((resolve, reject) => {
    lookup(url.hostname, { all: true }, (err) => {
      if (!err) return resolve();
      if (err instanceof AppError) return reject(err);
      reject(new AppError('upstream_failed', `The host ${url.hostname} cannot be resolved (${err.code ?? 'DNS error'})`));
    });
  });
  options.signal.throwIfAborted();

  const args = ['--no-playlist', '--no-progress', '--no-warnings', '--quiet', '--no-cache-dir', '-f', 'bestaudio/best', '--max-filesize', String(options.maxBytes), '-o', '-', '--', url.toString()];
  // Its own process group, so ending it also ends anything it started (ffmpeg for some formats).
  const child = spawn(options.path, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    if (log.length < MAX_LOG_BYTES) log += text;
  });
  const kill = (): void => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  options.signal.addEventListener('abort', kill, { once: true });

  const controller = new AbortController();
  const onAbort = (): void => controller.abort(options.signal.reason);
  options.signal.addEventListener('abort', onAbort, { once: true });
  const metered = meter(child.stdout, { maxBytes: options.maxBytes, what: 'The download', controller });
  try {
    const result = await consume({ body: metered.stream, signal: controller.signal, url: url.toString() });
    const status = await exited;
    if (status.code !== 0) throw failure(status, log);
    return result;
  } catch (err) {
    kill();
    // The consumer may have stopped reading mid-stream; unread output would keep the pipe (and 'close') open.
    child.stdout.destroy();
    const status = await exited;
    options.signal.throwIfAborted();
    if (metered.failure) throw metered.failure;
    // What the decoder made of an empty or cut stream says less than yt-dlp's own reason.
    if (status.error || (status.code !== 0 && status.code !== null)) throw failure(status, log);
    throw err;
  } finally {
    options.signal.removeEventListener('abort', kill);
    options.signal.removeEventListener('abort', onAbort);
  }
}

function failure(status: { code: number | null; error?: Error }, log: string): AppError {
  if (status.error) return new AppError('unavailable', `yt-dlp could not be started: ${status.error.message}`);
  if (/max-filesize|larger than max/i.test(log)) return new AppError('payload_too_large', 'The audio is larger than the download limit');
  const reason = log
    .split('\n')
    .map((line) => line.replace(/^ERROR:\s*/, '').trim())
    .filter(Boolean)
    .at(-1);
  return new AppError('upstream_failed', `yt-dlp could not fetch the audio${reason ? `: ${reason.slice(0, 300)}` : ''}`);
}
