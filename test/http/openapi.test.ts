/**
 * The OpenAPI document against the running code: real answers of every
 * endpoint, success and failure, are validated (ajv, JSON Schema 2020-12)
 * against the schemas and headers the document declares for that path,
 * method and status. An answer the document does not describe fails.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

import { makeAudio } from './helpers/audio.js';
import { postFile, postUrl, startHarness, startOrigin, type Harness } from './helpers/harness.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, ResponseDoc> }>>;
  components: { headers: Record<string, { schema: Record<string, unknown> }> };
}
interface ResponseDoc {
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

let h: Harness;
let doc: Doc;
let ajv: Ajv2020;
const seen = new Set<string>();

before(async () => {
  h = await startHarness(suite, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1', TRACKSCAN_MAX_UPLOAD_BYTES: '400K', TRACKSCAN_FIRST_BYTE_TIMEOUT_MS: '300' } });
  const res = await h.call('/openapi.json', { key: null });
  assert.equal(res.status, 200);
  doc = (await res.json()) as Doc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc as unknown as Record<string, unknown>, 'openapi.json');
});

/** Validates one real answer against the document. */
async function check(res: Response, method: string, path: string): Promise<unknown> {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(operation, `${method} ${path} is documented`);
  const documented = operation.responses[String(res.status)];
  const text = await res.text();
  assert.ok(documented, `${method} ${path} ${res.status} is documented (body ${text.slice(0, 200)})`);
  seen.add(`${method} ${path} ${res.status}`);
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const content = documented.content?.[mediaType];
  assert.ok(content, `${method} ${path} ${res.status} documents ${mediaType}`);
  const body = JSON.parse(text) as unknown;
  const schemaRef = `openapi.json#/paths/${encodeURIComponent(path.replace(/~/g, '~0').replace(/\//g, '~1'))}/${method.toLowerCase()}/responses/${res.status}/content/${encodeURIComponent(mediaType.replace(/\//g, '~1'))}/schema`;
  const validator = ajv.getSchema(schemaRef);
  assert.ok(validator, `schema ${schemaRef} compiles`);
  assert.ok(validator(body), `${method} ${path} ${res.status}: ${ajv.errorsText(validator.errors)}\n${text.slice(0, 500)}`);
  for (const [name, ref] of Object.entries(documented.headers ?? {})) {
    if (name === 'Retry-After' && res.status < 429) continue;
    const header = doc.components.headers[ref.$ref.split('/').pop()!]!;
    const value = res.headers.get(name);
    assert.ok(value !== null, `${method} ${path} ${res.status} sends ${name}`);
    const typed = (header.schema as { type?: string }).type === 'integer' ? Number(value) : value;
    const headerValidator = ajv.compile(header.schema);
    assert.ok(headerValidator(typed), `${name}: ${value} (${ajv.errorsText(headerValidator.errors)})`);
  }
  return body;
}

test('real answers match the document', async (t) => {
  const mp3 = await makeAudio(t, 'mp3', 2);
  const wav = await makeAudio(t, 'wav', 1);
  const origin = await startOrigin(t, (req, res) => {
    if (req.url === '/a.mp3') res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(mp3);
    else if (req.url === '/hang') return;
    else res.writeHead(404).end();
  });

  await check(await h.call('/openapi.json', { key: null }), 'GET', '/openapi.json');
  await check(await h.call('/health', { key: null }), 'GET', '/health');
  await check(await h.call('/usage'), 'GET', '/usage');
  await check(await h.call('/usage', { key: null }), 'GET', '/usage');

  await check(await postFile(h, mp3), 'POST', '/analyze/file');
  const detailed = (await check(await postFile(h, mp3, { details: 'true' }), 'POST', '/analyze/file')) as { details?: unknown };
  assert.ok(detailed.details, 'the details object was validated too');
  await check(await postFile(h, mp3, { details: 'true' }), 'POST', '/analyze/file'); // cached
  await check(await postFile(h, mp3, { detect_bpm: 'maybe' }), 'POST', '/analyze/file');
  await check(await postFile(h, Buffer.concat([mp3, Buffer.alloc(500 * 1024)])), 'POST', '/analyze/file');
  await check(await postFile(h, Buffer.from('plain text, no audio here '.repeat(20))), 'POST', '/analyze/file');
  await check(await postFile(h, wav.subarray(0, wav.length >> 1)), 'POST', '/analyze/file');

  await check(await postUrl(h, { url: `${origin.url}/a.mp3`, details: true }), 'POST', '/analyze/url');
  await check(await postUrl(h, { url: 'ftp://x/y' }), 'POST', '/analyze/url');
  await check(await postUrl(h, { url: `${origin.url}/missing` }), 'POST', '/analyze/url');
  await check(await postUrl(h, { url: `${origin.url}/hang` }), 'POST', '/analyze/url');

  const { secret } = await h.running.store.createKey({ name: 'limited', rateLimit: 1, monthlyLimit: 0 });
  await check(await postFile(h, mp3, {}, secret), 'POST', '/analyze/file'); // quota 0: 429
  await check(await h.call('/usage', { key: secret }), 'GET', '/usage'); // second request this minute: 429

  const store = h.running.store;
  const ping = store.ping.bind(store);
  store.ping = async () => false;
  try {
    await check(await h.call('/health', { key: null }), 'GET', '/health');
  } finally {
    store.ping = ping;
  }

  for (const expected of [
    'GET /health 200', 'GET /health 503', 'GET /usage 200', 'GET /usage 401', 'GET /usage 429',
    'POST /analyze/file 200', 'POST /analyze/file 400', 'POST /analyze/file 413', 'POST /analyze/file 415', 'POST /analyze/file 422', 'POST /analyze/file 429',
    'POST /analyze/url 200', 'POST /analyze/url 400', 'POST /analyze/url 502', 'POST /analyze/url 504',
  ]) {
    assert.ok(seen.has(expected), `exercised ${expected}`);
  }
});

test('the document is OpenAPI 3.1 and describes every endpoint of SPEC.md', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.paths).sort(), ['/analyze/file', '/analyze/url', '/health', '/openapi.json', '/usage']);
  for (const code of ['400', '401', '413', '415', '422', '429', '502', '503', '504']) {
    assert.ok(doc.paths['/analyze/url']!.post!.responses[code], `analyze/url documents ${code}`);
  }
});
