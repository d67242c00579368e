import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import Database from 'better-sqlite3';

import { openStore, SQLITE_FILE_NAME } from '../../src/store/open-store.js';
import { SqliteKeyvAdapter } from '../../src/store/sqlite-store.js';
import { storeContract } from './store-contract.js';

async function tempDir(t: { after(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trackscan-store-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

storeContract('sqlite', async (t) => ({ dataDir: join(await tempDir(t), 'data') }));

test('sqlite: the data directory is created 0700 and the database uses WAL', async (t) => {
  const dataDir = join(await tempDir(t), 'nested', 'data');
  const store = await openStore({ dataDir });
  t.after(() => store.close());
  assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
  const db = new Database(join(dataDir, SQLITE_FILE_NAME), { readonly: true });
  t.after(() => db.close());
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
});

test('sqlite: the secret is stored only as a hash', async (t) => {
  const dataDir = await tempDir(t);
  const store = await openStore({ dataDir });
  const { secret } = await store.createKey({ name: 'hashed', rateLimit: 20, monthlyLimit: 1000 });
  const { secret: second } = await store.createKey({ name: 'hashed too', rateLimit: 20, monthlyLimit: 1000 });
  // Search the WAL before close (close checkpoints it into the main file), then the main file.
  const files = async () => Promise.all((await readdir(dataDir)).map((f) => readFile(join(dataDir, f))));
  for (const bytes of await files()) assert.equal(bytes.includes(secret.slice(4)), false);
  await store.close();
  for (const bytes of await files()) {
    assert.equal(bytes.includes(secret.slice(4)), false);
    assert.equal(bytes.includes(second.slice(4)), false);
    assert.equal(bytes.includes(second.slice(0, 12)), true, 'sanity: the display prefix is in there, so the search works');
  }
});

test('sqlite: the keyv adapter honours TTLs itself and clears only its namespace', async (t) => {
  const db = new Database(join(await tempDir(t), 'cache.sqlite'));
  t.after(() => db.close());
  db.exec('CREATE TABLE cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER)');
  const adapter = new SqliteKeyvAdapter(db);
  adapter.namespace = 'cache';
  await adapter.set('cache:a', 'A', 500);
  await adapter.set('cache:b', 'B');
  await adapter.set('other:c', 'C');
  assert.equal(await adapter.get('cache:a'), 'A');
  assert.equal(await adapter.has('cache:a'), true);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(await adapter.get('cache:a'), undefined, 'expired rows are not returned, whatever the value says');
  assert.equal(await adapter.has('cache:a'), false);
  await adapter.clear();
  assert.equal(await adapter.get('cache:b'), undefined);
  assert.equal(await adapter.get('other:c'), 'C');
  assert.equal(await adapter.delete('other:c'), true);
  assert.equal(await adapter.delete('other:c'), false);
});

test('sqlite: old counter rows are pruned, current ones kept', async (t) => {
  const dataDir = await tempDir(t);
  const store = await openStore({ dataDir });
  t.after(() => store.close());
  const old = new Date('2026-03-15T12:00:00Z');
  const now = new Date('2026-03-15T12:30:00Z');
  // Writing the old minute prunes (first write of the process), writing the new one is within the interval.
  await store.hitRequest('key_p', old);
  await store.hitRequest('key_p', now);
  assert.equal((await store.usage('key_p', old)).requestsThisMinute, 1);
  // A fresh instance prunes on its first write, with cut-offs from the caller's clock.
  const second = await openStore({ dataDir });
  t.after(() => second.close());
  await second.hitRequest('key_p', now);
  assert.equal((await second.usage('key_p', old)).requestsThisMinute, 0, 'a minute row from 30 minutes ago is gone');
  assert.equal((await second.usage('key_p', now)).requestsThisMinute, 2);
});

test('sqlite: expired cache rows are deleted, not just hidden', async (t) => {
  const dataDir = await tempDir(t);
  const first = await openStore({ dataDir });
  t.after(() => first.close());
  await first.cache.set('soon-gone', 'x', 50);
  await first.cache.set('kept', 'y');
  await new Promise((r) => setTimeout(r, 100));
  // A fresh instance prunes on its first write.
  const second = await openStore({ dataDir });
  t.after(() => second.close());
  await second.cache.set('trigger', 'z');
  const db = new Database(join(dataDir, SQLITE_FILE_NAME), { readonly: true });
  t.after(() => db.close());
  const keys = (db.prepare('SELECT key FROM cache ORDER BY key').all() as Array<{ key: string }>).map((r) => r.key);
  assert.deepEqual(keys, ['cache:kept', 'cache:trigger']);
});
