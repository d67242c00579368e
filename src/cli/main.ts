/** `trackscan <command>`: dispatches to analyze, serve and keys. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { packageRoot } from '../native/binding.js';

const USAGE = `Usage: trackscan <command> [options]

Commands:
  analyze FILE... [--json] [--details] [--no-bpm] [--no-key] [--no-hz]
                         Analyse local audio files ("-" reads standard input)
  serve [--port N] [--host H] [--data DIR]
                         Start the HTTP API
  keys create --name NAME [--rate-limit N] [--monthly-limit N] [--data DIR]
  keys list [--data DIR] [--json]
  keys revoke ID [--data DIR]
                         Manage API keys (REDIS_URL selects Redis, as for serve)
  version                Print the versions of trackscan and its analysis engine

Run "trackscan <command> --help" for the options of a command.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'analyze': {
      const { runAnalyze } = await import('./analyze.js');
      return runAnalyze(rest);
    }
    case 'serve': {
      const { runServe } = await import('./serve.js');
      await runServe(rest);
      return 0;
    }
    case 'keys': {
      const { runKeys } = await import('./keys.js');
      return runKeys(rest);
    }
    case 'version':
    case '--version': {
      const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
      const { analyzerVersion } = await import('../native/analyzer.js');
      process.stdout.write(`trackscan ${pkg.version} (analyzer ${analyzerVersion()})\n`);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`trackscan: unknown command "${command}"\n\n${USAGE}\n`);
      return 2;
  }
}
