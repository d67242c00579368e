/** `trackscan serve`: runs the HTTP API until SIGINT/SIGTERM. */
import { ConfigError, loadConfig, serveHelp } from '../config.js';
import { startServer } from '../server.js';

/**
 * Starts the server with flags `argv` and the environment; resolves after a
 * graceful shutdown. A bad setting prints its message and sets exit code 2.
 */
export async function runServe(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${serveHelp()}\n`);
    return;
  }
  let config;
  try {
    config = loadConfig(argv, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`trackscan serve: ${err.message}\n`);
      // Exit here: the caller's generic success path must not turn a bad setting into status 0.
      process.exit(2);
    }
    throw err;
  }
  let running;
  try {
    running = await startServer(config);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? `port ${config.port} on ${config.host} is already in use` : e.message;
    process.stderr.write(`trackscan serve: cannot start: ${why}\n`);
    process.exit(1);
  }
  process.stderr.write(`trackscan: listening on ${running.url} (try it in a browser at ${running.url}/, API under ${running.url}/api/v1)\n`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        // A second signal means "now": in-flight work is abandoned.
        process.stderr.write(`trackscan: ${signal} again, exiting at once\n`);
        process.exit(130);
      }
      stopping = true;
      running.close().then(resolve, (err: unknown) => {
        process.stderr.write(`trackscan: error while stopping: ${(err as Error).message}\n`);
        process.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
