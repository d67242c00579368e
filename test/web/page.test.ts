/**
 * The page at `/` in a real browser: Debian's chromium (installed by
 * scripts/setup.sh) driven by playwright-core, headless, against a real
 * server on loopback. A click track at 120 BPM over an A minor chord is made
 * with ffmpeg; the page must show exactly what the API answers for it, draw
 * both plots, and put the API's errors into plain words. Screenshots are kept
 * in test/fixtures/.generated/web/ (git-ignored).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { chromium, type BrowserContext, type Page } from 'playwright-core';

import type { AnalysisObject } from '../../src/analysis/types.js';
import { ffmpeg, root } from '../helpers/media.js';
import { postFile, startHarness, startOrigin, type Harness } from '../http/helpers/harness.js';

const execFileAsync = promisify(execFile);
const CHROMIUM = process.env.TRACKSCAN_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(root, 'test', 'fixtures', '.generated', 'web');
const NO_ANSWER = 'no answer';
/** The page's storage, as seen inside page.evaluate (the DOM types are not in this project's lib). */
type BrowserGlobal = { localStorage: { getItem(key: string): string | null; removeItem(key: string): void } };

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

let h: Harness;
let context: BrowserContext;
let dir: string;
let trackPath: string;
let track: Buffer;
const pageProblems: string[] = [];

/** 12 s: a click every 0.5 s (120 BPM) over A3-C4-E4 (A minor), stereo MP3. */
async function makeTrack(path: string): Promise<void> {
  const chord = '0.12*sin(2*PI*220*t)+0.1*sin(2*PI*261.63*t)+0.1*sin(2*PI*329.63*t)';
  const click = '0.6*exp(-60*mod(t,0.5))*sin(2*PI*1000*t)';
  await ffmpeg('-f', 'lavfi', '-i', `aevalsrc='${chord}+${click}|${chord}+${click}':s=44100:d=12`, '-c:a', 'libmp3lame', '-b:a', '192k', '-f', 'mp3', path);
}

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser test needs Chromium at ${CHROMIUM} and it is not there. Install Debian's package ` +
        '(scripts/setup.sh does: apt-get install chromium), or point TRACKSCAN_CHROMIUM at a Chromium binary.',
    );
  }
  h = await startHarness(suite, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1' } });
  dir = await mkdtemp(join(tmpdir(), 'trackscan-web-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  trackPath = join(dir, 'click-120-a-minor.mp3');
  await makeTrack(trackPath);
  track = await readFile(trackPath);
  await mkdir(ARTIFACTS, { recursive: true });
  // A fresh profile each run: no key or cache from an earlier run can leak in.
  const profile = join(dir, 'profile');
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 900 },
  });
  cleanups.push(() => context.close());
  // Every change of the page's state (idle, uploading, analysing, done, error), in order.
  await context.addInitScript(`
    window.__states = [];
    document.addEventListener('DOMContentLoaded', () => {
      new MutationObserver(() => window.__states.push(document.body.dataset.state))
        .observe(document.body, { attributes: true, attributeFilter: ['data-state'] });
    });
  `);
  context.on('page', (page) => {
    page.on('pageerror', (err) => pageProblems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      // The browser logs every non-2xx answer as "Failed to load resource"; those are the error tests' own.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) pageProblems.push(`console: ${msg.text()}`);
    });
  });
});

async function openPage(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${h.running.url}/`);
  return page;
}

const shown = (page: Page, field: string): Promise<string[]> => page.locator(`[data-field="${field}"]`).allTextContents();

/** The page's rendering of an API number: as given, "no answer" for null. */
const asShown = (value: number | string | null | undefined, signed = false): string =>
  value === null || value === undefined ? NO_ANSWER : signed && typeof value === 'number' && value > 0 ? `+${value}` : String(value);

/** The parts of an answer that do not depend on whether it came from the cache. */
function stable(a: AnalysisObject): Omit<AnalysisObject, 'cached' | 'analysis_time'> {
  const { cached: _c, analysis_time: _t, ...rest } = a;
  return rest;
}

async function checkShown(page: Page, a: AnalysisObject): Promise<void> {
  const d = a.details!;
  const expect: Record<string, string> = {
    bpm: asShown(a.bpm),
    bpm_confidence: asShown(a.bpm_confidence),
    key: asShown(a.key),
    key_confidence: asShown(a.key_confidence),
    key_camelot: asShown(d.key_camelot),
    key_open_key: asShown(d.key_open_key),
    hz: asShown(a.hz),
    hz_confidence: asShown(a.hz_confidence),
    tuning_cents: asShown(d.tuning_cents, true),
    lufs: asShown(a.lufs),
    loudness_range: asShown(a.loudness_detail.loudness_range),
    true_peak_dbtp: asShown(a.loudness_detail.true_peak_dbtp),
    sample_peak_dbfs: asShown(a.loudness_detail.sample_peak_dbfs),
  };
  for (const [field, text] of Object.entries(expect)) assert.deepEqual(await shown(page, field), [text], field);
  // Confidence bars are as long as the confidence (or empty for no answer).
  for (const name of ['bpm_confidence', 'key_confidence', 'hz_confidence'] as const) {
    const width = await page.locator(`[data-conf="${name}"] .fill`).evaluate((el) => (el as unknown as { style: { width: string } }).style.width);
    const value = a[name];
    if (value === null) assert.equal(width, '', name);
    else assert.ok(Math.abs(parseFloat(width) - value * 100) < 1e-6, `${name} bar ${width} for ${value}`);
  }
  // Candidates, in the API's order with the API's scores.
  const rows = async (table: string) =>
    page.locator(`${table} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
  const tempo = d.tempo_candidates.map((c) => [String(c.bpm), String(c.score)]);
  const keys = d.key_candidates.map((c) => [c.key, String(c.score)]);
  assert.deepEqual(await rows('#tempo-candidates'), tempo.length ? tempo : [[NO_ANSWER]]);
  assert.deepEqual(await rows('#key-candidates'), keys.length ? keys : [[NO_ANSWER]]);
}

async function checkPlots(page: Page, a: AnalysisObject): Promise<void> {
  const d = a.details!;
  // One marker per beat of the answer, inside the plot, in time order.
  const beatX = await page.locator('#beats-plot line.beat').evaluateAll((lines) => lines.map((l) => Number(l.getAttribute('x1'))));
  assert.equal(beatX.length, d.beats.length, 'one marker per beat');
  for (let i = 1; i < beatX.length; i++) assert.ok(beatX[i]! >= beatX[i - 1]!, 'beats in time order');
  // The loudness curve: one point per non-null short-term value.
  const curvePoints = await page
    .locator('#loudness-plot polyline.curve')
    .evaluateAll((lines) => lines.reduce((n, l) => n + (l.getAttribute('points') ?? '').trim().split(/\s+/).filter(Boolean).length, 0));
  const values = d.loudness_curve.filter((v) => v !== null).length;
  assert.equal(curvePoints, values, 'one point per short-term value');
  assert.ok(values > 0, 'a 12 s file has short-term loudness values');
  // The -14 and -23 marks and the integrated level are drawn.
  for (const selector of ['line.target-14', 'line.target-23', ...(a.lufs === null ? [] : ['line.integrated'])]) {
    assert.equal(await page.locator(`#loudness-plot ${selector}`).count(), 1, selector);
  }
  // Both plots take real space on the page.
  for (const id of ['#beats-plot', '#loudness-plot']) {
    const box = await page.locator(id).boundingBox();
    assert.ok(box && box.width > 300 && box.height > 50, `${id} is laid out: ${JSON.stringify(box)}`);
  }
}

describe('the page', () => {
  test('serves the page and its two assets with a strict CSP', async () => {
    const res = await fetch(`${h.running.url}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    for (const [path, type] of [['/app.js', /javascript/], ['/style.css', /^text\/css/]] as const) {
      const asset = await fetch(`${h.running.url}${path}`);
      assert.equal(asset.status, 200, path);
      assert.match(asset.headers.get('content-type') ?? '', type, path);
    }
    assert.equal((await fetch(`${h.running.url}/index.html.bak`)).status, 404);
  });

  test('a file: the numbers shown are the API answer, and the plots are drawn', async (t) => {
    const page = await openPage();
    await page.fill('#api-key', h.key);
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/analyze/file'));
    await page.setInputFiles('#file', trackPath);
    const response = await answered;
    assert.equal(response.status(), 200);
    const pageAnswer = (await response.json()) as AnalysisObject;
    await page.waitForSelector('body[data-state="done"]', { timeout: 60_000 });
    // Progress was shown for the upload, then for the analysis.
    assert.deepEqual(await page.evaluate('window.__states'), ['uploading', 'analysing', 'done']);

    // The same file, asked of the API directly, gives the same analysis.
    const direct = await postFile(h, track, { details: 'true' });
    assert.equal(direct.status, 200);
    const api = (await direct.json()) as AnalysisObject;
    assert.deepEqual(stable(pageAnswer), stable(api));
    assert.ok(api.details, 'the page asks for details');

    await checkShown(page, api);
    await checkPlots(page, api);
    // The page's curl line is a working example, and it never writes out the key.
    const curl = (await page.textContent('#curl')) ?? '';
    assert.equal(curl.includes(h.key), false);
    assert.match(curl, /^curl -H "X-API-Key: \$TRACKSCAN_KEY" -F details=true -F file=@'click-120-a-minor\.mp3' http:\/\/127\.0\.0\.1:\d+\/api\/v1\/analyze\/file$/);
    if (existsSync('/usr/bin/curl')) {
      const { stdout } = await execFileAsync('sh', ['-c', curl], { cwd: dir, env: { ...process.env, TRACKSCAN_KEY: h.key } });
      assert.deepEqual(stable(JSON.parse(stdout) as AnalysisObject), stable(api));
    } else {
      t.diagnostic('curl is not installed: the curl line was checked by its form only');
    }
    await page.screenshot({ path: join(ARTIFACTS, 'page-result.png'), fullPage: true });
    await writeFile(join(ARTIFACTS, 'page-result.json'), JSON.stringify(api, null, 2));

    // The key stays in this browser's storage, and only there.
    assert.equal(await page.evaluate(() => (globalThis as unknown as BrowserGlobal).localStorage.getItem('trackscan.apiKey')), h.key);
    await page.reload();
    assert.equal(await page.inputValue('#api-key'), h.key);
    assert.deepEqual(pageProblems, []);
    await page.close();
  });

  test('a URL: the page shows what the API answers for it', async (t) => {
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(track.length) });
      res.end(track);
    });
    const url = `${origin.url}/song.mp3`;
    const page = await openPage();
    await page.fill('#api-key', h.key);
    await page.fill('#url', url);
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/analyze/url'));
    await page.click('#analyze-url');
    const pageAnswer = (await (await answered).json()) as AnalysisObject;
    await page.waitForSelector('body[data-state="done"]', { timeout: 60_000 });
    const direct = await h.call('/analyze/url', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, details: true }) });
    const api = (await direct.json()) as AnalysisObject;
    assert.equal(api.cached, true, 'the direct call is served from the cache the page filled');
    assert.deepEqual(stable(pageAnswer), stable(api));
    await checkShown(page, api);
    await checkPlots(page, api);
    await page.close();
  });

  test('a dropped file is analysed like a picked one', async () => {
    const page = await openPage();
    await page.fill('#api-key', h.key);
    const dataTransfer = await page.evaluateHandle(`(() => {
      const bytes = Uint8Array.from(atob('${track.toString('base64')}'), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'dropped.mp3', { type: 'audio/mpeg' }));
      return dt;
    })()`);
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/analyze/file'));
    await page.dispatchEvent('#drop', 'drop', { dataTransfer });
    const api = (await (await answered).json()) as AnalysisObject;
    await page.waitForSelector('body[data-state="done"]', { timeout: 60_000 });
    assert.equal(await page.textContent('#source-name'), 'dropped.mp3');
    await checkShown(page, api);
    await checkPlots(page, api);
    await page.close();
  });

  test('digital silence: every value the API leaves null reads "no answer"', async () => {
    const silence = join(dir, 'silence.wav');
    await ffmpeg('-f', 'lavfi', '-i', 'anullsrc=r=44100:cl=stereo', '-t', '5', '-c:a', 'pcm_s16le', silence);
    const page = await openPage();
    await page.fill('#api-key', h.key);
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/analyze/file'));
    await page.setInputFiles('#file', silence);
    const api = (await (await answered).json()) as AnalysisObject;
    await page.waitForSelector('body[data-state="done"]', { timeout: 60_000 });
    assert.equal(api.lufs, null, 'silence has no integrated loudness');
    assert.deepEqual(await shown(page, 'lufs'), [NO_ANSWER]);
    await checkShown(page, api);
    const nulls = Object.entries(api).filter(([, v]) => v === null).map(([k]) => k);
    for (const field of nulls) assert.deepEqual(await shown(page, field), [NO_ANSWER], field);
    assert.equal(await page.locator('#loudness-plot polyline.curve').count(), 0);
    assert.equal(await page.locator('#loudness-plot line.integrated').count(), 0);
    assert.equal(await page.locator('#loudness-plot .empty').count(), 1, 'the empty plot says why');
    await page.screenshot({ path: join(ARTIFACTS, 'page-silence.png'), fullPage: true });
    await page.close();
  });

  test('rate limited: 429 in plain words with the wait', async () => {
    const { secret } = await h.running.store.createKey({ name: 'one-a-minute', rateLimit: 1, monthlyLimit: 10 });
    const page = await openPage();
    await page.fill('#api-key', secret);
    await page.setInputFiles('#file', trackPath);
    await page.waitForSelector('body[data-state="done"]', { timeout: 60_000 });
    await page.setInputFiles('#file', trackPath);
    await page.waitForSelector('body[data-state="error"]', { timeout: 30_000 });
    assert.match(await page.textContent('#error-title') ?? '', /^429 /);
    assert.match(await page.textContent('#error-message') ?? '', /^Too many requests with this key in this minute\. Try again in \d+ s\.$/);
    assert.match(await page.textContent('#error-detail') ?? '', /code rate_limited/);
    assert.equal(await page.isVisible('#result'), false, 'the earlier result is not left on show');
    await page.close();
  });

  test('too big: 413 in plain words, even though the server stops reading the upload', async (t) => {
    const small = await startHarness(t, { env: { TRACKSCAN_MAX_UPLOAD_BYTES: '64K' } });
    const page = await context.newPage();
    await page.goto(`${small.running.url}/`);
    await page.fill('#api-key', small.key);
    await page.setInputFiles('#file', trackPath);
    await page.waitForSelector('body[data-state="error"]', { timeout: 30_000 });
    assert.match(await page.textContent('#error-title') ?? '', /^413 /);
    assert.match(await page.textContent('#error-message') ?? '', /too big/);
    assert.match(await page.textContent('#error-detail') ?? '', /code payload_too_large/);
    await page.close();
  });

  test('a URL that cannot be fetched: 502 in plain words', async (t) => {
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('gone');
    });
    const page = await openPage();
    await page.fill('#api-key', h.key);
    await page.fill('#url', `${origin.url}/missing.mp3`);
    await page.click('#analyze-url');
    await page.waitForSelector('body[data-state="error"]', { timeout: 30_000 });
    assert.match(await page.textContent('#error-title') ?? '', /^502 /);
    assert.match(await page.textContent('#error-message') ?? '', /could not be fetched/);
    assert.match(await page.textContent('#error-detail') ?? '', /code upstream_failed/);
    await page.close();
  });

  test('a bad key: 401 in plain words, with the server detail', async () => {
    const page = await openPage();
    await page.fill('#api-key', 'tsk_this_key_does_not_exist');
    await page.setInputFiles('#file', trackPath);
    await page.waitForSelector('body[data-state="error"]', { timeout: 30_000 });
    assert.equal(await page.isVisible('#result'), false);
    assert.match(await page.textContent('#error-title') ?? '', /^401 /);
    assert.match(await page.textContent('#error-message') ?? '', /API key is not accepted/);
    assert.match(await page.textContent('#error-detail') ?? '', /code invalid_api_key/);
    await page.screenshot({ path: join(ARTIFACTS, 'page-bad-key.png') });
    await page.close();
  });

  test('no key: the page asks for one and sends nothing', async () => {
    const page = await openPage();
    await page.evaluate(() => (globalThis as unknown as BrowserGlobal).localStorage.removeItem('trackscan.apiKey'));
    await page.fill('#api-key', '');
    let sent = 0;
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/')) sent += 1;
    });
    await page.setInputFiles('#file', trackPath);
    await page.waitForSelector('body[data-state="error"]');
    assert.match(await page.textContent('#error-message') ?? '', /Enter your API key/);
    assert.equal(sent, 0);
    await page.close();
  });

  test('not audio: 415 in plain words', async () => {
    const textFile = join(dir, 'notes.mp3');
    await writeFile(textFile, 'These are meeting notes, not music.\n'.repeat(200));
    const page = await openPage();
    await page.fill('#api-key', h.key);
    await page.setInputFiles('#file', textFile);
    await page.waitForSelector('body[data-state="error"]', { timeout: 30_000 });
    assert.match(await page.textContent('#error-title') ?? '', /^415 /);
    assert.match(await page.textContent('#error-message') ?? '', /not audio trackscan can read/);
    assert.match(await page.textContent('#error-detail') ?? '', /code unsupported_media_type/);
    await page.screenshot({ path: join(ARTIFACTS, 'page-415.png') });
    await page.close();
  });
});
