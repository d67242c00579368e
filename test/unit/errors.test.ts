import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { AppError, ERRORS, type ErrorCode } from '../../src/errors.js';
import { root } from '../helpers/media.js';

test('README lists every error code with its status, and no unknown code', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split('## Errors')[1]!.split('\n## ')[0]!;
  const rows = [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2]!, Number(m[1])] as const);
  assert.deepEqual(new Map(rows), new Map(Object.entries(ERRORS).map(([code, e]) => [code, e.status])));
});

test('an AppError becomes an RFC 9457 problem document', () => {
  const err = new AppError('quota_exceeded', 'Monthly quota of 1000 analyses used up', { retryAfterSeconds: 3600 });
  assert.deepEqual(err.toProblem(), {
    type: 'urn:trackscan:problem:quota_exceeded',
    title: 'Monthly quota exceeded',
    status: 429,
    detail: 'Monthly quota of 1000 analyses used up',
    code: 'quota_exceeded' satisfies ErrorCode,
  });
  assert.equal(err.retryAfterSeconds, 3600);
});

test('README configuration table lists every setting, and no unknown one', async () => {
  const { SETTINGS } = await import('../../src/config.js');
  const { METRICS_SETTINGS } = await import('../../src/http/metrics.js');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split('### Configuration')[1]!.split('\n### ')[0]!;
  const listed = [...section.matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]);
  assert.deepEqual(listed.sort(), [...SETTINGS, ...METRICS_SETTINGS].map((s) => s.env).sort());
});
