/**
 * Service configuration: command-line flags over environment variables over
 * defaults, parsed and validated once at start. A bad value stops the start
 * with a message that names the setting, what arrived and what is expected,
 * so a typo never turns into a silently different limit.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { DEFAULT_YTDLP_HOSTS } from './sources/ytdlp.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  /**
   * Loopback by default: a fresh install should not expose an API (and the
   * key it prints on first start) to the network until its owner decides to,
   * e.g. with --host 0.0.0.0 behind a TLS proxy.
   */
  host: string;
  dataDir: string;
  redisUrl: string | null;
  maxUploadBytes: number;
  maxDownloadBytes: number;
  /** Largest HTML page read while looking for the media it hosts. */
  maxPageBytes: number;
  maxDurationSeconds: number;
  connectTimeoutMs: number;
  /** Time from sending a request to the upstream's response headers. */
  firstByteTimeoutMs: number;
  /** The whole fetch, every hop and the body, streamed into the analyzer. */
  downloadTimeoutMs: number;
  maxRedirects: number;
  /** Longest pause inside an upload's body before it is given up. */
  uploadIdleTimeoutMs: number;
  concurrency: number;
  queueLength: number;
  cacheTtlSeconds: number;
  allowPrivateUrls: boolean;
  logLevel: LogLevel;
  /** How long shutdown waits for in-flight requests before ending them. */
  shutdownTimeoutMs: number;
  /** yt-dlp executable for extractor sites; null: disabled. */
  ytdlpPath: string | null;
  /** Hosts (and subdomains) sent to yt-dlp. */
  ytdlpHosts: string[];
}

/** A configuration value that cannot be used; `message` is meant for the operator. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

interface Setting {
  key: keyof Config;
  env: string;
  flag?: string;
  meaning: string;
  default: string;
}

/** Every setting, in the order of the README table. */
export const SETTINGS: readonly Setting[] = [
  { key: 'port', env: 'TRACKSCAN_PORT', flag: 'port', default: '8080', meaning: 'TCP port of the HTTP API (0 picks a free one)' },
  { key: 'host', env: 'TRACKSCAN_HOST', flag: 'host', default: '127.0.0.1', meaning: 'Address to listen on; loopback until you choose to expose it' },
  { key: 'dataDir', env: 'TRACKSCAN_DATA_DIR', flag: 'data', default: './.trackscan', meaning: 'Directory of the SQLite store (keys, counters, cache)' },
  { key: 'redisUrl', env: 'REDIS_URL', default: '(unset)', meaning: 'Use Redis instead of SQLite, shared by several instances' },
  { key: 'maxUploadBytes', env: 'TRACKSCAN_MAX_UPLOAD_BYTES', default: '200MiB', meaning: 'Largest upload (bytes; K/M/G suffixes are powers of 1024)' },
  { key: 'maxDownloadBytes', env: 'TRACKSCAN_MAX_DOWNLOAD_BYTES', default: '200MiB', meaning: 'Largest download from a URL' },
  { key: 'maxPageBytes', env: 'TRACKSCAN_MAX_PAGE_BYTES', default: '2MiB', meaning: 'Largest HTML page read to find its media' },
  { key: 'maxDurationSeconds', env: 'TRACKSCAN_MAX_DURATION_SECONDS', default: '1800', meaning: 'Longest audio analysed (seconds)' },
  { key: 'connectTimeoutMs', env: 'TRACKSCAN_CONNECT_TIMEOUT_MS', default: '5000', meaning: 'Connect timeout per download hop' },
  { key: 'firstByteTimeoutMs', env: 'TRACKSCAN_FIRST_BYTE_TIMEOUT_MS', default: '10000', meaning: 'Time to the response headers per hop; also the longest pause inside a body' },
  { key: 'downloadTimeoutMs', env: 'TRACKSCAN_DOWNLOAD_TIMEOUT_MS', default: '120000', meaning: 'Whole URL fetch, all hops and the body' },
  { key: 'maxRedirects', env: 'TRACKSCAN_MAX_REDIRECTS', default: '5', meaning: 'Redirects followed per URL' },
  { key: 'uploadIdleTimeoutMs', env: 'TRACKSCAN_UPLOAD_IDLE_TIMEOUT_MS', default: '30000', meaning: 'Longest pause inside an upload before it is refused (a stalled sender must not hold an analysis slot)' },
  { key: 'concurrency', env: 'TRACKSCAN_CONCURRENCY', default: 'one per core', meaning: 'Analyses run at once' },
  { key: 'queueLength', env: 'TRACKSCAN_QUEUE_LENGTH', default: '4 x concurrency', meaning: 'Analyses waiting for a slot; beyond it 503 overloaded' },
  { key: 'cacheTtlSeconds', env: 'TRACKSCAN_CACHE_TTL_SECONDS', default: '2592000', meaning: 'Lifetime of a cached result (30 days)' },
  { key: 'allowPrivateUrls', env: 'TRACKSCAN_ALLOW_PRIVATE_URLS', default: '0', meaning: '1 lets URLs reach loopback/private addresses (tests, trusted LANs)' },
  { key: 'logLevel', env: 'TRACKSCAN_LOG_LEVEL', default: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent' },
  { key: 'shutdownTimeoutMs', env: 'TRACKSCAN_SHUTDOWN_TIMEOUT_MS', default: '10000', meaning: 'Grace period for in-flight requests on SIGTERM' },
  { key: 'ytdlpPath', env: 'TRACKSCAN_YTDLP', default: '(unset: off)', meaning: '1 (yt-dlp on PATH) or a path: fetch extractor sites (YouTube, SoundCloud, ...) with yt-dlp' },
  { key: 'ytdlpHosts', env: 'TRACKSCAN_YTDLP_HOSTS', default: DEFAULT_YTDLP_HOSTS.join(','), meaning: 'Comma-separated hosts (and their subdomains) sent to yt-dlp' },
];

const UNITS: Record<string, number> = { '': 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };

function describe(setting: Setting): string {
  return setting.flag ? `--${setting.flag} / ${setting.env}` : setting.env;
}

function parseInteger(setting: Setting, raw: string, min: number, max: number): number {
  const text = raw.trim();
  if (!/^\d+$/.test(text)) throw new ConfigError(`${describe(setting)}: expected a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(`${describe(setting)}: expected a whole number from ${min} to ${max}, got ${value}`);
  return value;
}

function parseBytes(setting: Setting, raw: string): number {
  const match = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(raw);
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new ConfigError(`${describe(setting)}: expected a size such as 52428800, 50M or 50MiB, got "${raw}"`);
  }
  const value = Number(match[1]) * unit;
  if (value < 1 || !Number.isSafeInteger(value)) throw new ConfigError(`${describe(setting)}: the size must be at least 1 byte, got "${raw}"`);
  return value;
}

function parseBoolean(setting: Setting, raw: string): boolean {
  const text = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(text)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(text)) return false;
  throw new ConfigError(`${describe(setting)}: expected 1 or 0 (true/false), got "${raw}"`);
}

function parseUrl(setting: Setting, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${describe(setting)}: expected a URL such as redis://127.0.0.1:6379, got a value that is not a URL`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError(`${describe(setting)}: expected a redis:// or rediss:// URL, got the scheme "${url.protocol}"`);
  }
  return raw;
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Long help for `trackscan serve --help`. */
export function serveHelp(): string {
  const rows = SETTINGS.map((s) => `  ${(s.flag ? `--${s.flag}, ` : '') + s.env}\n      ${s.meaning} (default ${s.default})`);
  return `Usage: trackscan serve [--port N] [--host ADDRESS] [--data DIR]\n\nStart the HTTP API. Settings (flags win over environment variables):\n${rows.join('\n')}`;
}

/**
 * Builds the configuration from `argv` (the arguments after `serve`) and
 * `env`. Throws ConfigError naming the first bad setting.
 */
export function loadConfig(argv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Config {
  let flags: { port?: string; host?: string; data?: string };
  try {
    flags = parseArgs({
      args: [...argv],
      options: { port: { type: 'string' }, host: { type: 'string' }, data: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const setting = (key: keyof Config): Setting => SETTINGS.find((s) => s.key === key)!;
  const raw = (key: keyof Config): string | undefined => {
    const s = setting(key);
    const fromFlag = s.flag ? (flags as Record<string, string | undefined>)[s.flag] : undefined;
    if (fromFlag !== undefined) return fromFlag;
    const fromEnv = env[s.env];
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  };
  const int = (key: keyof Config, fallback: number, min: number, max: number): number => {
    const value = raw(key);
    return value === undefined ? fallback : parseInteger(setting(key), value, min, max);
  };
  const bytes = (key: keyof Config, fallback: number): number => {
    const value = raw(key);
    return value === undefined ? fallback : parseBytes(setting(key), value);
  };

  const host = raw('host') ?? '127.0.0.1';
  if (!/^[\w.:-]+$/.test(host)) throw new ConfigError(`--host / TRACKSCAN_HOST: expected an address or host name, got "${host}"`);
  const logLevel = (raw('logLevel') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new ConfigError(`TRACKSCAN_LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got "${raw('logLevel')}"`);
  }
  const redis = raw('redisUrl');
  const ytdlp = raw('ytdlpPath');
  const ytdlpOn = ytdlp === undefined ? false : !['0', 'false', 'no', 'off'].includes(ytdlp.trim().toLowerCase());
  const hosts = (raw('ytdlpHosts') ?? DEFAULT_YTDLP_HOSTS.join(','))
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const h of hosts) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(h)) throw new ConfigError(`TRACKSCAN_YTDLP_HOSTS: expected host names such as youtube.com, got "${h}"`);
  }
  const concurrency = int('concurrency', Math.max(1, availableParallelism()), 1, 256);
  return {
    port: int('port', 8080, 0, 65535),
    host,
    dataDir: resolve(raw('dataDir') ?? './.trackscan'),
    redisUrl: redis === undefined ? null : parseUrl(setting('redisUrl'), redis),
    maxUploadBytes: bytes('maxUploadBytes', 200 * 1024 ** 2),
    maxDownloadBytes: bytes('maxDownloadBytes', 200 * 1024 ** 2),
    maxPageBytes: bytes('maxPageBytes', 2 * 1024 ** 2),
    maxDurationSeconds: int('maxDurationSeconds', 1800, 1, 86400),
    connectTimeoutMs: int('connectTimeoutMs', 5000, 1, 600_000),
    firstByteTimeoutMs: int('firstByteTimeoutMs', 10_000, 1, 600_000),
    downloadTimeoutMs: int('downloadTimeoutMs', 120_000, 1, 3_600_000),
    maxRedirects: int('maxRedirects', 5, 0, 20),
    uploadIdleTimeoutMs: int('uploadIdleTimeoutMs', 30_000, 1, 3_600_000),
    concurrency,
    queueLength: int('queueLength', 4 * concurrency, 0, 100_000),
    cacheTtlSeconds: int('cacheTtlSeconds', 30 * 86400, 1, 10 * 365 * 86400),
    allowPrivateUrls: raw('allowPrivateUrls') === undefined ? false : parseBoolean(setting('allowPrivateUrls'), raw('allowPrivateUrls')!),
    logLevel: logLevel as LogLevel,
    shutdownTimeoutMs: int('shutdownTimeoutMs', 10_000, 0, 600_000),
    ytdlpPath: !ytdlpOn ? null : ['1', 'true', 'yes', 'on'].includes(ytdlp!.trim().toLowerCase()) ? 'yt-dlp' : ytdlp!,
    ytdlpHosts: hosts,
  };
}
