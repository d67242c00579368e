/**
 * Child process for the cross-process counting tests (store-contract.ts): opens
 * the store named in argv[2] and, on the parent's word, fires its share of
 * concurrent hits and reservations on one key, then its releases.
 */
import { openStore } from '../../src/store/open-store.js';

interface Config {
  options: { dataDir: string; redisUrl?: string };
  plan: { hits: number; reserves: number; limit: number; releases: number };
  keyId: string;
  now: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;
const now = new Date(config.now);
const store = await openStore(config.options);
const send = (m: unknown) => process.send?.(m);

process.on('message', async (msg: string | { burstAt: number }) => {
  try {
    if (typeof msg === 'object') {
      // Both children start at the same wall-clock instant rather than when each gets its message.
      await new Promise((r) => setTimeout(r, Math.max(0, msg.burstAt - Date.now())));
      const startedAt = Date.now();
      const ops: Promise<number | boolean>[] = [];
      for (let i = 0; i < Math.max(config.plan.hits, config.plan.reserves); i++) {
        if (i < config.plan.hits) ops.push(store.hitRequest(config.keyId, now));
        if (i < config.plan.reserves) ops.push(store.reserveAnalysis(config.keyId, config.plan.limit, now));
      }
      const results = await Promise.all(ops);
      send({
        hits: results.filter((r): r is number => typeof r === 'number'),
        granted: results.filter((r) => r === true).length,
        startedAt,
        endedAt: Date.now(),
      });
    } else if (msg === 'release') {
      await Promise.all(Array.from({ length: config.plan.releases }, () => store.releaseAnalysis(config.keyId, now)));
      send({ released: config.plan.releases });
    } else if (msg === 'exit') {
      await store.close();
      process.disconnect();
    }
  } catch (err) {
    console.error(err);
    process.exit(1);
  }
});
send({ ready: true });
