import { isGrantablePermission } from '@keyplane/core';
import { type CommanderError, Command as Parser } from 'commander';
import { UsageError } from './errors.ts';

export type Command =
  | { name: 'help' }
  | { name: 'migrate' }
  | { name: 'bootstrap'; workspaceName: string }
  | { name: 'setup-link' }
  | { name: 'root-keys create'; workspaceId: string; keyName?: string; permissions: string[]; expiresAt?: Date }
  | { name: 'root-keys revoke'; rootKeyId: string }
  | { name: 'root-keys list'; workspaceId: string }
  | { name: 'vault enable'; workspaceId: string }
  | { name: 'rate-limit set'; workspaceId: string; requestsPerMinute: number }
  | { name: 'rate-limit clear'; workspaceId: string };

export interface CommandLine {
  command: Command;
  json: boolean;
}

/** The width of the name columns in the database. */
const MAX_NAME_LENGTH = 255;
/** The largest value of the database's integer column. */
const MAX_REQUESTS_PER_MINUTE = 2_147_483_647;
/** The largest time a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;

export function parseCommandLine(argv: readonly string[]): CommandLine {
  let parsed: Command | undefined;
  const program = buildParser((command) => {
    parsed = command;
  });
  rejectOptionsTakenAsValues(program, argv);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    // Like `git --help`: a request for help wins over whatever else the line got wrong.
    if (!program.opts<GlobalOptions>().help) throw error;
  }
  const { json = false, help = false } = program.opts<GlobalOptions>();
  if (help) return { command: { name: 'help' }, json };
  if (parsed === undefined) throw new UsageError('missing command');
  return { command: parsed, json };
}

type GlobalOptions = {
  json?: boolean;
  help?: boolean;
};

/**
 * The command tree, built afresh for each line since commander keeps the parsed values on it.
 * Commander prints nothing and never exits: every problem becomes a one-line UsageError (exit code 2,
 * nothing on stdout), and help is usage.ts's text, printed by cli.ts.
 */
function buildParser(found: (command: Command) => void): Parser {
  const program = new Parser('keyplane')
    .helpOption(false)
    .helpCommand(false)
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .exitOverride(failWith(''))
    // Global options count anywhere on the line, before or after the command.
    .option('--json')
    .option('-h, --help');
  rejectUnknownSubcommand(program);

  subcommand(program, 'help')
    .argument('[topic...]')
    .action(() => found({ name: 'help' }));
  subcommand(program, 'migrate').action(() => found({ name: 'migrate' }));
  subcommand(program, 'bootstrap')
    .option('--name <NAME>', '', once('--name', checkedName))
    .action((options: { name?: string }) => found({ name: 'bootstrap', workspaceName: options.name ?? 'default' }));

  subcommand(program, 'setup-link').action(() => found({ name: 'setup-link' }));

  const rootKeys = rejectUnknownSubcommand(subcommand(program, 'root-keys'));
  subcommand(rootKeys, 'create')
    .requiredOption('--workspace <WORKSPACE_ID>', '', once('--workspace', nonEmpty('--workspace')))
    .option('--name <NAME>', '', once('--name', checkedName))
    .option('--permission <PERMISSION>', '', (permission: string, previous: string[] = []) => [
      ...previous,
      checkedPermission(permission),
    ])
    .option('--expires <UNIX_MS>', '', once('--expires', parseExpires))
    .action((options: { workspace: string; name?: string; permission?: string[]; expires?: Date }) =>
      found({
        name: 'root-keys create',
        workspaceId: options.workspace,
        keyName: options.name,
        permissions: options.permission ?? [],
        expiresAt: options.expires,
      }),
    );
  subcommand(rootKeys, 'revoke')
    .argument('<ROOT_KEY_ID>', '', nonEmpty('ROOT_KEY_ID'))
    .action((rootKeyId: string) => found({ name: 'root-keys revoke', rootKeyId }));
  subcommand(rootKeys, 'list')
    .requiredOption('--workspace <WORKSPACE_ID>', '', once('--workspace', nonEmpty('--workspace')))
    .action((options: { workspace: string }) => found({ name: 'root-keys list', workspaceId: options.workspace }));

  const vault = rejectUnknownSubcommand(subcommand(program, 'vault'));
  subcommand(vault, 'enable')
    .argument('<WORKSPACE_ID>', '', nonEmpty('WORKSPACE_ID'))
    .action((workspaceId: string) => found({ name: 'vault enable', workspaceId }));

  const rateLimit = rejectUnknownSubcommand(subcommand(program, 'rate-limit'));
  subcommand(rateLimit, 'set')
    .argument('<WORKSPACE_ID>', '', nonEmpty('WORKSPACE_ID'))
    .requiredOption('--per-minute <REQUESTS>', '', once('--per-minute', parseRequestsPerMinute))
    .action((workspaceId: string, options: { perMinute: number }) =>
      found({ name: 'rate-limit set', workspaceId, requestsPerMinute: options.perMinute }),
    );
  subcommand(rateLimit, 'clear')
    .argument('<WORKSPACE_ID>', '', nonEmpty('WORKSPACE_ID'))
    .action((workspaceId: string) => found({ name: 'rate-limit clear', workspaceId }));

  return program;
}

/** A subcommand whose errors name it: `rate-limit clear: missing required argument 'WORKSPACE_ID'`. */
function subcommand(parent: Parser, name: string): Parser {
  const command = parent.command(name);
  const path = parent.parent ? `${parent.name()} ${name}` : name;
  return command.exitOverride(failWith(`${path}: `));
}

/**
 * Commander's own error for a command that has subcommands is to print its help; here it names the
 * subcommands instead, on one line.
 */
function rejectUnknownSubcommand(command: Parser): Parser {
  return command.argument('[command...]').action(([given]: string[]) => {
    if (!command.parent) throw new UsageError(given === undefined ? 'missing command' : `unknown command "${given}"`);
    const expected = `${command.name()} needs one of: ${command.commands.map((sub) => sub.name()).join(', ')}`;
    throw new UsageError(given === undefined ? expected : `unknown command "${command.name()} ${given}": ${expected}`);
  });
}

/** Commander's messages start with `error: ` and put a suggestion on a line of its own. */
function failWith(prefix: string) {
  return (error: CommanderError): never => {
    const message = error.message.replace(/^error: /, '').replaceAll(/\s*\n\s*/g, ' ');
    throw new UsageError(`${prefix}${message}`);
  };
}

/**
 * Commander takes the argument after `--workspace` as its value even when it is another option:
 * like node's strict parseArgs, `--workspace --json` is a forgotten value, `--name=-x` a deliberate one.
 */
function rejectOptionsTakenAsValues(program: Parser, argv: readonly string[]): void {
  const optionsWithValues = new Set(
    commandsOf(program).flatMap((command) =>
      command.options.filter((option) => option.required).map(({ long }) => long),
    ),
  );
  for (const [index, argument] of argv.entries()) {
    if (argument === '--') return;
    if (optionsWithValues.has(argument) && argv[index + 1]?.startsWith('-')) {
      throw new UsageError(`${argument} needs a value`);
    }
  }
}

function commandsOf(command: Parser): Parser[] {
  return [command, ...command.commands.flatMap(commandsOf)];
}

/** Commander keeps the last of a repeated option; a repeated `--name` is more likely a mistake. */
function once<T>(flag: string, parse: (value: string) => T) {
  return (value: string, previous: T | undefined): T => {
    if (previous !== undefined) throw new UsageError(`${flag} may be given only once`);
    return parse(value);
  };
}

function nonEmpty(name: string) {
  return (value: string): string => {
    if (value === '') throw new UsageError(`${name} must not be empty`);
    return value;
  };
}

function checkedName(name: string): string {
  if (name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw new UsageError(`--name must be 1 to ${MAX_NAME_LENGTH} characters`);
  }
  return name;
}

function checkedPermission(permission: string): string {
  if (!isGrantablePermission(permission)) {
    throw new UsageError(`invalid permission "${permission}" (expected e.g. api.*.create_key)`);
  }
  return permission;
}

function parseRequestsPerMinute(value: string): number {
  const requests = Number(value);
  if (!/^\d+$/.test(value) || requests > MAX_REQUESTS_PER_MINUTE) {
    throw new UsageError(`--per-minute must be a whole number from 0 to ${MAX_REQUESTS_PER_MINUTE}, got "${value}"`);
  }
  return requests;
}

function parseExpires(value: string): Date {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms > MAX_DATE_MS) {
    throw new UsageError(`--expires must be a Unix time in milliseconds, got "${value}"`);
  }
  return new Date(ms);
}
