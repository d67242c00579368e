/**
 * `trackscan serve` as a real process: first-start key printed once, bad
 * configuration refused with a clear message, and graceful shutdown on
 * SIGTERM (in-flight work finishes, new connections are refused, work past
 * the grace period is ended and the process exits).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';

import { cli, makeTempDir } from '../helpers/media.js';
import { makeAudio } from './helpers/audio.js';

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  exited: Promise<number | null>;
}

async function serve(t: { after: (fn: () => unknown) => void }, dataDir: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', dataDir], {
    env: { ...process.env, TRACKSCAN_LOG_LEVEL: 'warn', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const end = Date.now() + 15_000;
  while (!/listening on (http:\/\/\S+) /.test(stderr)) {
    if (child.exitCode !== null || Date.now() > end) throw new Error(`serve did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const url = /listening on (http:\/\/\S+) /.exec(stderr)![1]!;
  return { child, url, stdout: () => stdout, exited };
}

test('the first start prints one key, once; the key works', async (t) => {
  const dir = await makeTempDir(t);
  const first = await serve(t, dir);
  const key = /X-API-Key: (tsk_\w+)/.exec(first.stdout())?.[1];
  assert.ok(key, first.stdout());
  const usage = await fetch(`${first.url}/api/v1/usage`, { headers: { 'X-API-Key': key } });
  assert.equal(usage.status, 200);
  assert.equal(((await usage.json()) as { api_key_name: string }).api_key_name, 'default');
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);

  const second = await serve(t, dir);
  assert.doesNotMatch(second.stdout(), /tsk_/);
  const again = await fetch(`${second.url}/api/v1/usage`, { headers: { 'X-API-Key': key } });
  assert.equal(again.status, 200);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});

test('a bad setting stops the start with a clear message and exit code 2', async (t) => {
  const dir = await makeTempDir(t);
  const child = spawn(process.execPath, [cli, 'serve', '--data', dir], { env: { ...process.env, TRACKSCAN_MAX_UPLOAD_BYTES: 'lots' } });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const [code] = await once(child, 'exit');
  assert.equal(code, 2);
  assert.match(stderr, /TRACKSCAN_MAX_UPLOAD_BYTES: expected a size .* got "lots"/);
});

/** Sends an upload slowly: the head at once, the rest after `holdMs`. */
function slowUpload(url: string, key: string, file: Buffer, holdMs: number): Promise<Response> {
  const boundary = 'shutdown-boundary';
  const head = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\n`), file.subarray(0, 8192)]);
  const tail = Buffer.concat([file.subarray(8192), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  let step = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      step += 1;
      if (step === 1) controller.enqueue(head);
      else if (step === 2) {
        // unref: a test that is done must not wait for this hold to run out.
        await new Promise((r) => setTimeout(r, holdMs).unref());
        controller.enqueue(tail);
      } else controller.close();
    },
  });
  return fetch(`${url}/api/v1/analyze/file`, {
    method: 'POST',
    body,
    headers: { 'X-API-Key': key, 'content-type': `multipart/form-data; boundary=${boundary}` },
    duplex: 'half',
  } as RequestInit);
}

test('SIGTERM: in-flight work finishes, new connections are refused, then the process exits', async (t) => {
  const dir = await makeTempDir(t);
  const mp3 = await makeAudio(t, 'mp3', 3);
  const served = await serve(t, dir, { TRACKSCAN_SHUTDOWN_TIMEOUT_MS: '10000' });
  const key = /X-API-Key: (tsk_\w+)/.exec(served.stdout())![1]!;
  const inFlight = slowUpload(served.url, key, mp3, 1000);
  await new Promise((r) => setTimeout(r, 300));
  served.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  await assert.rejects(fetch(`${served.url}/api/v1/health`), 'new connections are refused while draining');
  const res = await inFlight;
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.equal((JSON.parse(text) as { cached: boolean }).cached, false);
  assert.equal(await served.exited, 0);
});

test('SIGTERM: work past the grace period is ended and the process still exits', async (t) => {
  const dir = await makeTempDir(t);
  const mp3 = await makeAudio(t, 'mp3', 3);
  const served = await serve(t, dir, { TRACKSCAN_SHUTDOWN_TIMEOUT_MS: '300' });
  const key = /X-API-Key: (tsk_\w+)/.exec(served.stdout())![1]!;
  const inFlight = slowUpload(served.url, key, mp3, 30_000).then(
    (res) => res.status,
    () => 'connection closed',
  );
  await new Promise((r) => setTimeout(r, 300));
  const started = performance.now();
  served.child.kill('SIGTERM');
  assert.equal(await served.exited, 0);
  assert.ok(performance.now() - started < 5000, `exit took ${performance.now() - started} ms`);
  const outcome = await inFlight;
  assert.ok(outcome === 503 || outcome === 'connection closed', String(outcome));
});
