/** `trackscan keys create|list|revoke`: API key management on the store the server uses. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { DEFAULT_MONTHLY_LIMIT, DEFAULT_RATE_LIMIT } from '../store/api-keys.js';
import { openStore } from '../store/open-store.js';
import type { ApiKeyRecord, Store } from '../store/store.js';

const HELP = `Usage:
  trackscan keys create --name NAME [--rate-limit N] [--monthly-limit N] [--data DIR] [--json]
  trackscan keys list [--data DIR] [--json]
  trackscan keys revoke ID [--data DIR]

Create, list and revoke API keys. A new key is printed once, on standard output
(the explanation goes to standard error), and stored only as a hash: copy it
then. Keys start with "tsk_".

Options:
  --name NAME          Label for the key (create; required)
  --rate-limit N       Requests per UTC minute (default ${DEFAULT_RATE_LIMIT})
  --monthly-limit N    Fresh analyses per UTC calendar month (default ${DEFAULT_MONTHLY_LIMIT})
  --data DIR           Data directory of the SQLite store (default: $TRACKSCAN_DATA_DIR or ./.trackscan)
  --json               Machine-readable output
  -h, --help           Show this help

REDIS_URL in the environment selects the Redis store, exactly as for "trackscan serve".

Exit status: 0 on success, 1 when the store fails or the key to revoke is unknown, 2 on bad usage.`;

class UsageError extends Error {}

function parseCount(flag: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(`${flag} expects an integer >= ${min}, got "${value}"`);
  }
  return Number(value);
}

function toJson(r: ApiKeyRecord): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    prefix: r.displayPrefix,
    rate_limit: r.rateLimit,
    monthly_limit: r.monthlyLimit,
    created_at: r.createdAt,
    revoked_at: r.revokedAt,
  };
}

function table(records: ApiKeyRecord[]): string {
  const rows = [['ID', 'NAME', 'PREFIX', 'PER MINUTE', 'PER MONTH', 'CREATED', 'STATUS']];
  for (const r of records) {
    rows.push([
      r.id,
      r.name,
      `${r.displayPrefix}...`,
      String(r.rateLimit),
      String(r.monthlyLimit),
      r.createdAt.slice(0, 19).replace('T', ' '),
      r.revokedAt ? `revoked ${r.revokedAt.slice(0, 10)}` : 'active',
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

async function run(store: Store, command: string, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  const json = values.json === true;
  switch (command) {
    case 'create': {
      const { record, secret } = await store.createKey({
        name: values.name as string,
        rateLimit: parseCount('--rate-limit', values['rate-limit'] as string | undefined, DEFAULT_RATE_LIMIT, 1),
        monthlyLimit: parseCount('--monthly-limit', values['monthly-limit'] as string | undefined, DEFAULT_MONTHLY_LIMIT, 0),
      });
      if (json) {
        process.stdout.write(`${JSON.stringify({ ...toJson(record), key: secret })}\n`);
      } else {
        process.stderr.write(
          `Created key ${record.id} "${record.name}" (${record.rateLimit} requests/minute, ${record.monthlyLimit} analyses/month).\n` +
            'This is the only time the key is shown. Send it in the X-API-Key header:\n',
        );
        process.stdout.write(`${secret}\n`);
      }
      return 0;
    }
    case 'list': {
      const records = await store.listKeys();
      if (json) process.stdout.write(`${JSON.stringify(records.map(toJson))}\n`);
      else process.stdout.write(records.length === 0 ? 'No keys yet: trackscan keys create --name NAME\n' : `${table(records)}\n`);
      return 0;
    }
    case 'revoke': {
      const id = positionals[0]!;
      if (await store.revokeKey(id)) {
        process.stdout.write(`Revoked ${id}; requests with it are refused from now on.\n`);
        return 0;
      }
      process.stderr.write(`trackscan keys: no active key with id "${id}" (see "trackscan keys list")\n`);
      return 1;
    }
    default:
      throw new UsageError(`unknown keys command "${command}"`);
  }
}

/**
 * Runs `trackscan keys ...` with the arguments after `keys`; returns the exit code.
 * Opens the store named by `--data`/TRACKSCAN_DATA_DIR or REDIS_URL and closes it before returning.
 */
export async function runKeys(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'rate-limit': { type: 'string' },
        'monthly-limit': { type: 'string' },
        data: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`trackscan keys: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const problem =
    command === undefined ? 'missing command (create, list or revoke)'
    : !['create', 'list', 'revoke'].includes(command) ? `unknown keys command "${command}"`
    : command === 'create' && (values.name === undefined || values.name.trim() === '') ? 'create needs --name NAME'
    : command === 'revoke' && rest.length !== 1 ? 'revoke needs exactly one key ID'
    : command !== 'revoke' && rest.length > 0 ? `unexpected argument "${rest[0]}"`
    : undefined;
  if (problem) {
    process.stderr.write(`trackscan keys: ${problem}\n\n${HELP}\n`);
    return 2;
  }

  let store: Store | undefined;
  try {
    // Validate numbers before touching the store, so a typo creates no data directory.
    if (command === 'create') {
      parseCount('--rate-limit', values['rate-limit'], DEFAULT_RATE_LIMIT, 1);
      parseCount('--monthly-limit', values['monthly-limit'], DEFAULT_MONTHLY_LIMIT, 0);
    }
    const dataDir = resolve(values.data ?? (process.env.TRACKSCAN_DATA_DIR || '.trackscan'));
    store = await openStore({ dataDir, redisUrl: process.env.REDIS_URL || undefined });
    return await run(store, command!, values, rest);
  } catch (err) {
    const usage = err instanceof UsageError || err instanceof RangeError || err instanceof TypeError;
    process.stderr.write(`trackscan keys: ${(err as Error).message}\n`);
    return usage ? 2 : 1;
  } finally {
    await store?.close().catch(() => {});
  }
}
