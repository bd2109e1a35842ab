import { CONFIG_ERROR_EXIT_CODE, EnvError, loadEnv } from '@keyplane/config';
import { parseCommandLine } from './args.ts';
import { CommandError, UsageError } from './errors.ts';
import { USAGE } from './usage.ts';

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** Runs one invocation and returns its exit code; output goes to stdout, errors to stderr only. */
export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    const { command, json } = parseCommandLine(argv);
    if (command.name === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    // Loaded only now: the ORM is most of the start-up time, which help and argument errors do without.
    const { runCommand } = await import('./commands.ts');
    const output = await runCommand(command, loadEnv());
    process.stdout.write(json ? `${JSON.stringify(output.json)}\n` : output.text);
    return 0;
  } catch (error) {
    return reportFailure(error);
  }
}

function reportFailure(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`keyplane: ${error.message} (see keyplane --help)\n`);
    return EXIT_USAGE;
  }
  if (error instanceof EnvError) {
    process.stderr.write(`${error.message}\n`);
    return CONFIG_ERROR_EXIT_CODE;
  }
  const message = error instanceof Error ? error.message : String(error);
  const detail = error instanceof CommandError ? message : `unexpected error: ${message}`;
  process.stderr.write(`keyplane: ${detail.replaceAll(/\s*\n\s*/g, ' ')}\n`);
  return EXIT_FAILURE;
}
