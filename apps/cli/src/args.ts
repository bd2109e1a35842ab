import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { isGrantablePermission } from '@keyplane/core';
import { UsageError } from './errors.ts';

export type Command =
  | { name: 'help' }
  | { name: 'migrate' }
  | { name: 'bootstrap'; workspaceName: string }
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

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  workspace: { type: 'string' },
  permission: { type: 'string', multiple: true },
  expires: { type: 'string' },
  'per-minute': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

type OptionName = keyof typeof OPTIONS;
type CommandOption = Exclude<OptionName, 'json' | 'help'>;

interface Options {
  json: boolean;
  help: boolean;
  name?: string;
  workspace?: string;
  permission: string[];
  expires?: string;
  'per-minute'?: string;
}

interface CommandSpec {
  options: readonly CommandOption[];
  operands: readonly string[];
  build(operands: string[], options: Options): Command;
}

/** The width of the name columns in the database. */
const MAX_NAME_LENGTH = 255;
/** The largest value of the database's integer column. */
const MAX_REQUESTS_PER_MINUTE = 2_147_483_647;
/** The largest time a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;

const COMMANDS = new Map<string, CommandSpec>([
  ['migrate', { options: [], operands: [], build: () => ({ name: 'migrate' }) }],
  [
    'bootstrap',
    {
      options: ['name'],
      operands: [],
      build: (_, options) => ({ name: 'bootstrap', workspaceName: checkedName(options.name) ?? 'default' }),
    },
  ],
  [
    'root-keys create',
    {
      options: ['workspace', 'name', 'permission', 'expires'],
      operands: [],
      build: (_, options) => ({
        name: 'root-keys create',
        workspaceId: requiredWorkspace(options),
        keyName: checkedName(options.name),
        permissions: options.permission.map(checkedPermission),
        expiresAt: options.expires === undefined ? undefined : parseExpires(options.expires),
      }),
    },
  ],
  [
    'root-keys revoke',
    {
      options: [],
      operands: ['ROOT_KEY_ID'],
      build: ([rootKeyId = '']) => ({ name: 'root-keys revoke', rootKeyId }),
    },
  ],
  [
    'root-keys list',
    {
      options: ['workspace'],
      operands: [],
      build: (_, options) => ({ name: 'root-keys list', workspaceId: requiredWorkspace(options) }),
    },
  ],
  [
    'vault enable',
    {
      options: [],
      operands: ['WORKSPACE_ID'],
      build: ([workspaceId = '']) => ({ name: 'vault enable', workspaceId }),
    },
  ],
  [
    'rate-limit set',
    {
      options: ['per-minute'],
      operands: ['WORKSPACE_ID'],
      build: ([workspaceId = ''], options) => ({
        name: 'rate-limit set',
        workspaceId,
        requestsPerMinute: parseRequestsPerMinute(options['per-minute']),
      }),
    },
  ],
  [
    'rate-limit clear',
    {
      options: [],
      operands: ['WORKSPACE_ID'],
      build: ([workspaceId = '']) => ({ name: 'rate-limit clear', workspaceId }),
    },
  ],
]);

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { positionals, options, given } = readArguments(argv);
  if (options.help || positionals[0] === 'help') return { command: { name: 'help' }, json: options.json };

  const [commandName, spec, operands] = findCommand(positionals);
  for (const { name, rawName } of given) {
    if (!spec.options.some((allowed) => allowed === name)) {
      throw new UsageError(`${rawName} is not an option of ${commandName}`);
    }
  }
  const [missing] = spec.operands.slice(operands.length);
  if (missing !== undefined) throw new UsageError(`${commandName} needs ${missing}`);
  const [extra] = operands.slice(spec.operands.length);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}" for ${commandName}`);
  const emptyOperand = spec.operands.find((_, index) => operands[index] === '');
  if (emptyOperand !== undefined) throw new UsageError(`${emptyOperand} must not be empty`);

  return { command: spec.build(operands, options), json: options.json };
}

function findCommand(positionals: string[]): [string, CommandSpec, string[]] {
  const [first, second] = positionals;
  if (first === undefined) throw new UsageError('missing command');
  const pair = `${first} ${second}`;
  const pairSpec = COMMANDS.get(pair);
  if (pairSpec) return [pair, pairSpec, positionals.slice(2)];
  const single = COMMANDS.get(first);
  if (single) return [first, single, positionals.slice(1)];

  const subcommands = [...COMMANDS.keys()]
    .filter((name) => name.startsWith(`${first} `))
    .map((name) => name.slice(first.length + 1));
  if (subcommands.length === 0) throw new UsageError(`unknown command "${first}"`);
  const expected = `${first} needs one of: ${subcommands.join(', ')}`;
  throw new UsageError(second === undefined ? expected : `unknown command "${pair}": ${expected}`);
}

/**
 * `parseArgs` in strict mode reports problems in messages that span several lines and vary between
 * Node versions, so it runs leniently here and the tokens are checked with one-line messages.
 */
function readArguments(argv: readonly string[]) {
  const { tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positionals: string[] = [];
  const options: Options = { json: false, help: false, permission: [] };
  const given: { name: CommandOption; rawName: string }[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const name = token.name;
    if (!isOptionName(name)) throw new UsageError(`unknown option ${token.rawName}`);
    if (name === 'json' || name === 'help') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} does not take a value`);
      options[name] = true;
      continue;
    }
    // Like strict parseArgs: `--workspace --json` is a forgotten value, `--name=-x` a deliberate one.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
      throw new UsageError(`${token.rawName} needs a value`);
    }
    if (name === 'permission') {
      options.permission.push(token.value);
    } else {
      if (options[name] !== undefined) throw new UsageError(`${token.rawName} may be given only once`);
      options[name] = token.value;
    }
    given.push({ name, rawName: token.rawName });
  }
  return { positionals, options, given };
}

function isOptionName(name: string): name is OptionName {
  return Object.hasOwn(OPTIONS, name);
}

function requiredWorkspace(options: Options): string {
  if (!options.workspace) throw new UsageError('--workspace WORKSPACE_ID is required');
  return options.workspace;
}

function checkedName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
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

function parseRequestsPerMinute(value: string | undefined): number {
  if (value === undefined) throw new UsageError('--per-minute REQUESTS is required');
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
