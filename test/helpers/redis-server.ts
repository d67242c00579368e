/**
 * A throw-away redis-server for tests (Debian's /usr/bin/redis-server).
 *
 *   const redis = await startRedisServer();
 *   t.after(() => redis.stop());
 *   // ... openStore({ dataDir, redisUrl: redis.url }) or spawn a server with REDIS_URL=redis.url
 *
 * The server listens on 127.0.0.1 only, on a free port, keeps nothing on disk
 * (no RDB snapshots, no AOF) and works in its own temp directory, removed by
 * stop(). To simulate an outage, stop() it and later start a new one on the same
 * port with `startRedisServer({ port: redis.port })`: the data is gone, the URL
 * is the same. To simulate a server that hangs instead, `process.kill(redis.pid,
 * 'SIGSTOP')` and later 'SIGCONT' (stop() resumes it first, so it can exit).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  /** `redis://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Process id of the redis-server. */
  pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const START_TIMEOUT_MS = 10_000;

/** A port that was free a moment ago (the small race with other processes is handled by retrying). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once the port answers as *our* child: checking the pid in INFO, not just
 * a PONG, keeps us from adopting another test's server that won a race for the port.
 */
async function waitUntilReady(port: number, child: ChildProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server exited early (${child.exitCode ?? child.signalCode})`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let reply = '';
      socket.setTimeout(500, () => socket.destroy());
      const mark = `process_id:${child.pid}\r\n`;
      socket.on('connect', () => socket.write('INFO server\r\n'));
      socket.on('data', (chunk) => {
        reply += chunk.toString();
        if (reply.includes(mark)) socket.end();
      });
      socket.on('close', () => resolve(reply.includes(mark)));
      socket.on('error', () => {});
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not answer on port ${port} within ${START_TIMEOUT_MS} ms`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGCONT'); // a paused server would not act on SIGTERM
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts redis-server on 127.0.0.1.
 * @param options.port a fixed port (e.g. to restart after stop()); default: a free one
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = options.port ?? (await freePort());
    const dir = await mkdtemp(join(tmpdir(), 'trackscan-redis-'));
    const child = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.resume();
    const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
    spawnError.catch(() => {});
    try {
      await Promise.race([waitUntilReady(port, child, Date.now() + START_TIMEOUT_MS), spawnError]);
    } catch (err) {
      lastError = err;
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
      // A fixed port that does not come up will not come up on a retry either... unless it was
      // still being released by the previous server: give it a moment.
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    let stopped: Promise<void> | undefined;
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      pid: child.pid!,
      stop: () => {
        stopped ??= stopChild(child).then(() => rm(dir, { recursive: true, force: true }));
        return stopped;
      },
    };
  }
  throw new Error(`Could not start redis-server: ${String(lastError)}`);
}
