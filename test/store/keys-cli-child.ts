/** Runs `trackscan keys ...` (runKeys) in a fresh process, for keys-cli.test.ts. */
import { runKeys } from '../../src/cli/keys.js';

process.exitCode = await runKeys(process.argv.slice(2));
