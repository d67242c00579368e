/**
 * Logs: one JSON line per request with a request id, and no secrets: never
 * an API key, never a URL's query string or credentials.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';

import { pino } from 'pino';

import { postUrl, startHarness, startOrigin } from './helpers/harness.js';

test('request logs carry ids and outcomes, not keys or URL secrets', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const h = await startHarness(t, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1' }, deps: { logger } });
  const origin = await startOrigin(t, (_req, res) => {
    res.writeHead(500).end();
  });
  const res = await postUrl(h, { url: `${origin.url}/song.mp3?token=SECRET-TOKEN-123&sig=abc` }, undefined);
  assert.equal(res.status, 502);
  const requestId = res.headers.get('x-request-id');
  assert.ok(requestId);
  await h.call('/usage', { headers: { 'x-request-id': 'client-chosen-id-1' } });
  await h.call('/usage', { key: 'tsk_wrong_key_value' });
  await new Promise((r) => setTimeout(r, 50));

  const all = lines.join('\n');
  assert.doesNotMatch(all, new RegExp(h.key));
  assert.doesNotMatch(all, /tsk_wrong_key_value/);
  assert.doesNotMatch(all, /SECRET-TOKEN-123|sig=abc/);
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const requests = records.filter((r) => r.msg === 'request');
  assert.ok(requests.some((r) => r.reqId === requestId && r.status === 502 && r.path === '/api/v1/analyze/url' && typeof r.keyId === 'string'));
  assert.ok(requests.some((r) => r.reqId === 'client-chosen-id-1' && r.status === 200));
  assert.ok(requests.some((r) => r.status === 401 && r.keyId === undefined));
  // The fetched URL is logged without its query.
  assert.ok(records.some((r) => r.target === `${origin.url}/song.mp3`));
});
