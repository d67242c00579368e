/**
 * A bigger version of the cross-process counting test, run by hand (not part of
 * the test suite: it takes a few seconds of both cores):
 *
 *   npx tsc -p tsconfig.json && node dist/test/store/hammer-stress.js [N=2000]
 *
 * Two child processes each fire N request hits and N reservations (limit 1.5 N)
 * at one key, concurrently, then N/4 releases each; once on SQLite, once on a
 * throw-away redis-server. Prints whether every count came out exact.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openStore, type OpenStoreOptions } from '../../src/store/open-store.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { hammerFromTwoProcesses, HAMMER_NOW } from './store-contract.js';

const n = Number(process.argv[2] ?? 2000);
const plan = { hits: n, reserves: n, limit: Math.floor(1.5 * n), releases: Math.floor(n / 4) };
const dir = await mkdtemp(join(tmpdir(), 'trackscan-stress-'));
const redis = await startRedisServer();
let allExact = true;
try {
  const backends: Array<[string, OpenStoreOptions]> = [
    ['sqlite', { dataDir: join(dir, 'data') }],
    ['redis', { dataDir: dir, redisUrl: redis.url }],
  ];
  for (const [name, options] of backends) {
    const r = await hammerFromTwoProcesses(options, plan);
    const store = await openStore(options);
    const usage = await store.usage('key_hammer', HAMMER_NOW);
    await store.close();
    const hitsExact = [...r.hitsSeen].sort((a, b) => a - b).every((v, i) => v === i + 1) && r.hitsSeen.length === 2 * n;
    const expectedMonth = plan.limit - 2 * plan.releases;
    const exact = hitsExact && r.granted === plan.limit && usage.requestsThisMinute === 2 * n && usage.analysesThisMonth === expectedMonth;
    allExact &&= exact;
    console.log(
      `${name}: 2 processes x (${n} hits + ${n} reservations), burst ${r.burstMs} ms, overlap ${r.overlapMs} ms; ` +
        `hits 1..${2 * n} each seen once: ${hitsExact}; granted ${r.granted}/${plan.limit}; ` +
        `minute ${usage.requestsThisMinute}/${2 * n}; month ${usage.analysesThisMonth}/${expectedMonth} -> ${exact ? 'EXACT' : 'WRONG'}`,
    );
  }
} finally {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exitCode = allExact ? 0 : 1;
