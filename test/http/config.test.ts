/** Configuration: defaults, flags over environment, and clear messages for bad values. */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { test } from 'node:test';

import { ConfigError, loadConfig, SETTINGS } from '../../src/config.js';

test('defaults', () => {
  const c = loadConfig([], {});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.dataDir, resolve('./.trackscan'));
  assert.equal(c.redisUrl, null);
  assert.equal(c.concurrency, availableParallelism());
  assert.equal(c.queueLength, 4 * availableParallelism());
  assert.equal(c.allowPrivateUrls, false);
  assert.equal(c.maxUploadBytes, 200 * 1024 * 1024);
  assert.equal(c.logLevel, 'info');
});

test('flags win over the environment', () => {
  const c = loadConfig(['--port', '9000', '--host', '0.0.0.0', '--data', '/tmp/x'], { TRACKSCAN_PORT: '7000', TRACKSCAN_HOST: '::1', TRACKSCAN_DATA_DIR: '/tmp/y' });
  assert.equal(c.port, 9000);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.dataDir, '/tmp/x');
});

test('environment values, sizes with suffixes', () => {
  const c = loadConfig([], {
    TRACKSCAN_MAX_UPLOAD_BYTES: '50M',
    TRACKSCAN_MAX_DOWNLOAD_BYTES: '1GiB',
    TRACKSCAN_CONCURRENCY: '3',
    TRACKSCAN_QUEUE_LENGTH: '0',
    TRACKSCAN_ALLOW_PRIVATE_URLS: '1',
    REDIS_URL: 'redis://127.0.0.1:6379/2',
    TRACKSCAN_LOG_LEVEL: 'DEBUG',
  });
  assert.equal(c.maxUploadBytes, 50 * 1024 * 1024);
  assert.equal(c.maxDownloadBytes, 1024 ** 3);
  assert.equal(c.concurrency, 3);
  assert.equal(c.queueLength, 0);
  assert.equal(c.allowPrivateUrls, true);
  assert.equal(c.redisUrl, 'redis://127.0.0.1:6379/2');
  assert.equal(c.logLevel, 'debug');
});

test('a bad value names the setting, what arrived and what is expected', () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['--port', '70000'], {}, /--port \/ TRACKSCAN_PORT: expected a whole number from 0 to 65535, got 70000/],
    [[], { TRACKSCAN_PORT: 'eighty' }, /TRACKSCAN_PORT.*got "eighty"/],
    [[], { TRACKSCAN_MAX_UPLOAD_BYTES: '10 parsecs' }, /TRACKSCAN_MAX_UPLOAD_BYTES: expected a size/],
    [[], { TRACKSCAN_CONCURRENCY: '0' }, /TRACKSCAN_CONCURRENCY: expected a whole number from 1/],
    [[], { TRACKSCAN_ALLOW_PRIVATE_URLS: 'maybe' }, /TRACKSCAN_ALLOW_PRIVATE_URLS: expected 1 or 0/],
    [[], { REDIS_URL: 'http://localhost:6379' }, /REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/],
    [[], { TRACKSCAN_LOG_LEVEL: 'loud' }, /TRACKSCAN_LOG_LEVEL: expected one of/],
    [['--nope'], {}, /Unknown option '--nope'/],
  ];
  for (const [argv, env, message] of cases) {
    assert.throws(() => loadConfig(argv, env), (err: unknown) => err instanceof ConfigError && message.test(err.message), `${argv.join(' ')} ${JSON.stringify(env)}`);
  }
});

test('every setting is documented with an environment name', () => {
  for (const s of SETTINGS) assert.match(s.env, /^(TRACKSCAN_[A-Z_]+|REDIS_URL)$/);
  assert.equal(new Set(SETTINGS.map((s) => s.key)).size, SETTINGS.length);
});

test('yt-dlp: off by default, 1 means the one on PATH, otherwise a path; hosts are checked', () => {
  assert.equal(loadConfig([], {}).ytdlpPath, null);
  assert.equal(loadConfig([], { TRACKSCAN_YTDLP: '0' }).ytdlpPath, null);
  assert.equal(loadConfig([], { TRACKSCAN_YTDLP: '1' }).ytdlpPath, 'yt-dlp');
  assert.equal(loadConfig([], { TRACKSCAN_YTDLP: '/opt/bin/yt-dlp' }).ytdlpPath, '/opt/bin/yt-dlp');
  assert.deepEqual(loadConfig([], { TRACKSCAN_YTDLP_HOSTS: 'YouTube.com, soundcloud.com' }).ytdlpHosts, ['youtube.com', 'soundcloud.com']);
  assert.throws(() => loadConfig([], { TRACKSCAN_YTDLP_HOSTS: 'http://x' }), (err: unknown) => err instanceof ConfigError && /TRACKSCAN_YTDLP_HOSTS/.test(err.message));
});
