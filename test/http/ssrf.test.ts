/**
 * The SSRF guard ON (the default): IP literals in every notation, names that
 * resolve to refused addresses, and redirects or page links to them. Each
 * refusal must come before any connection: the origin must see no request.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { after, before, describe, test } from 'node:test';

import { refusalReason, type LookupFunction } from '../../src/sources/address-guard.js';
import { makeAudio } from './helpers/audio.js';
import { postUrl, problemOf, startHarness, startOrigin, type Harness } from './helpers/harness.js';

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** Names the test controls; anything else goes to the system resolver (localhost). */
const NAMES: Record<string, LookupAddress[]> = {
  'media.test': [{ address: '127.0.0.1', family: 4 }],
  'private.test': [{ address: '10.1.2.3', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  // One connectable stand-in-public address and one refused: the name is refused whole.
  'mixed.test': [
    { address: '127.0.0.1', family: 4 },
    { address: '10.9.9.9', family: 4 },
  ],
  'v6-loop.test': [{ address: '::1', family: 6 }],
};

const resolve: LookupFunction = (hostname, _options, callback) => {
  const known = NAMES[hostname];
  if (known) return callback(null, known);
  return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
};

let strict: Harness;
let seam: Harness;
let mp3: Buffer;
let origin: Awaited<ReturnType<typeof startOrigin>>;

before(async () => {
  mp3 = await makeAudio(suite, 'mp3', 2);
  origin = await startOrigin(suite, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/media.mp3') {
      res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(mp3);
    } else if (url.pathname === '/to') {
      res.writeHead(302, { location: url.searchParams.get('target') ?? '/' }).end();
    } else if (url.pathname === '/page') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<meta property="og:audio" content="${url.searchParams.get('media')}">`);
    } else {
      res.writeHead(404).end();
    }
  });
  // The real default policy and the system resolver.
  strict = await startHarness(suite);
  // The real policy, except that 127.0.0.1 stands in for "a public server" (so redirects
  // and page links can start somewhere), and names come from the table above.
  seam = await startHarness(suite, { deps: { addressPolicy: (ip) => (ip === '127.0.0.1' ? null : refusalReason(ip)), resolve } });
});

async function expectRefused(h: Harness, url: string): Promise<void> {
  const res = await postUrl(h, { url });
  const problem = await problemOf(res);
  assert.equal(res.status, 400, `${url}: ${problem.detail}`);
  assert.equal(problem.code, 'url_not_allowed', `${url}: ${problem.detail}`);
}

describe('IP literals in every notation', () => {
  const forms = [
    '127.0.0.1',
    '2130706433', // decimal
    '017700000001', // octal
    '0x7f000001', // hex
    '0x7f.0.0.1', // mixed
    '0177.0.0.01',
    '127.1', // short form
    '0', // 0.0.0.0
    '[::1]',
    '[::]',
    '[::ffff:127.0.0.1]', // IPv4-mapped
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::ffff:a9fe:a9fe]', // mapped 169.254.169.254
    '[64:ff9b::7f00:1]', // NAT64 of 127.0.0.1
    '[2002:7f00:1::]', // 6to4 of 127.0.0.1
    '[fe80::1]',
    '[fd00:ec2::254]', // AWS metadata over IPv6
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '100.64.0.1', // CGNAT
    '100.100.100.200', // Alibaba metadata (CGNAT)
    '169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
  ];
  for (const form of forms) {
    test(form, async () => {
      const count = origin.hits.get('/media.mp3') ?? 0;
      await expectRefused(strict, `http://${form}:${origin.port}/media.mp3`);
      assert.equal(origin.hits.get('/media.mp3') ?? 0, count, 'no request reached the origin');
    });
  }
});

describe('names', () => {
  test('a real name that resolves to loopback (localhost)', async () => {
    const count = origin.hits.get('/media.mp3') ?? 0;
    await expectRefused(strict, `http://localhost:${origin.port}/media.mp3`);
    assert.equal(origin.hits.get('/media.mp3') ?? 0, count);
  });
  for (const name of ['private.test', 'metadata.test', 'mixed.test', 'v6-loop.test']) {
    test(`${name} resolves to a refused address`, async () => {
      const count = origin.hits.get('/media.mp3') ?? 0;
      await expectRefused(seam, `http://${name}:${origin.port}/media.mp3`);
      assert.equal(origin.hits.get('/media.mp3') ?? 0, count, 'no request reached the origin');
    });
  }
  test('the stand-in public name works, so the refusals above are not the seam failing', async () => {
    const res = await postUrl(seam, { url: `http://media.test:${origin.port}/media.mp3` });
    assert.equal(res.status, 200, await res.clone().text());
  });
});

describe('every hop is checked', () => {
  const targets = [
    'http://10.0.0.7/x.mp3',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/x.mp3',
    'http://2130706434/x.mp3', // 127.0.0.2 in decimal
    'http://private.test/x.mp3',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
  ];
  for (const target of targets) {
    test(`a redirect to ${target}`, async () => {
      await expectRefused(seam, `http://media.test:${origin.port}/to?target=${encodeURIComponent(target)}`);
    });
  }
  test('a page whose media link points at a private address', async () => {
    await expectRefused(seam, `http://media.test:${origin.port}/page?media=${encodeURIComponent('http://192.168.0.10/song.mp3')}`);
  });
  test('TRACKSCAN_ALLOW_PRIVATE_URLS=1 lets the same loopback URL through', async (t) => {
    const open = await startHarness(t, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1' } });
    const res = await postUrl(open, { url: `http://localhost:${origin.port}/media.mp3` });
    assert.equal(res.status, 200, await res.clone().text());
  });
});
