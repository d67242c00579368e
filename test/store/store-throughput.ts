/**
 * Throughput of the store's hot paths, run by hand (not part of the test suite):
 *
 *   npx tsc -p tsconfig.json && node dist/test/store/store-throughput.js [N=5000]
 *
 * Per backend (SQLite in a temp dir, a throw-away redis-server): what every
 * authenticated request costs (findKey + hitRequest) and what a fresh analysis
 * adds (reserveAnalysis + releaseAnalysis), one at a time and 100 in flight.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openStore, type OpenStoreOptions } from '../../src/store/open-store.js';
import { startRedisServer } from '../helpers/redis-server.js';

const n = Number(process.argv[2] ?? 5000);
const dir = await mkdtemp(join(tmpdir(), 'trackscan-throughput-'));
const redis = await startRedisServer();
try {
  const backends: Array<[string, OpenStoreOptions]> = [
    ['sqlite', { dataDir: dir }],
    ['redis', { dataDir: dir, redisUrl: redis.url }],
  ];
  for (const [name, options] of backends) {
    const store = await openStore(options);
    const { secret } = await store.createKey({ name: 'bench', rateLimit: 20, monthlyLimit: 1000 });
    const cases: Array<[string, () => Promise<void>]> = [
      [
        'findKey + hitRequest',
        async () => {
          const key = await store.findKey(secret);
          await store.hitRequest(key!.id, new Date());
        },
      ],
      [
        'reserveAnalysis + releaseAnalysis',
        async () => {
          const at = new Date();
          await store.reserveAnalysis('key_bench', 1e9, at);
          await store.releaseAnalysis('key_bench', at);
        },
      ],
    ];
    for (const [label, op] of cases) {
      let started = performance.now();
      for (let i = 0; i < n; i++) await op();
      const sequential = n / ((performance.now() - started) / 1000);
      started = performance.now();
      for (let b = 0; b < n / 100; b++) await Promise.all(Array.from({ length: 100 }, op));
      const parallel = n / ((performance.now() - started) / 1000);
      console.log(`${name}: ${label}: ${sequential.toFixed(0)}/s one at a time, ${parallel.toFixed(0)}/s with 100 in flight`);
    }
    await store.close();
  }
} finally {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}
