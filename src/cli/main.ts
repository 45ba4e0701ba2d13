// The CLI entry point: `npm run cli -- <command> [options]` (or `npx jps ...`); every command has --help.
// Commands load what they run when they run (the HTTP service, DuckDB, the MCP SDK): a command pays
// only for its own modules, and --help and --version for none.

import { readFileSync } from 'node:fs';
import { accountsCreate, accountsList, accountsSet } from './accounts.js';
import { helpText, parseCommandArgs, UsageError, type Command } from './command.js';
import { generate } from './generate.js';
import { keysCreate, keysImport, keysList, keysRevoke } from './keys.js';
import { mergeReportCommand, publishCommand } from './publish.js';
import { serve } from './serve.js';
import { mcpCommand } from './mcp.js';
import { ConfigError } from '../config.js';
import { nearest } from '../shared/nearest.js';
import { OperatorError } from '../shared/operator-error.js';

const COMMANDS: Command[] = [
  serve,
  mcpCommand,
  generate,
  publishCommand,
  mergeReportCommand,
  accountsCreate,
  accountsList,
  accountsSet,
  keysCreate,
  keysList,
  keysRevoke,
  keysImport,
];

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function overview(): string {
  return [
    'Usage: npm run cli -- <command> [options]      (or: npx jps <command> [options])',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name}`.padEnd(20) + c.summary.split('. ')[0]!.replace(/\.$/, '')),
    '',
    'Every command takes --help; most take --json for machine-readable output. --version prints the version.',
  ].join('\n');
}

/**
 * The command named by the first words that are not options (two words before one), and the arguments
 * around it: flags may come before the command (`--json accounts list`, `--data-dir=./x keys list`).
 */
function findCommand(argv: string[]): { command?: Command; rest: string[] } {
  const at = argv.findIndex((arg) => !arg.startsWith('-'));
  for (const words of at === -1 ? [] : [2, 1]) {
    const name = argv.slice(at, at + words).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: [...argv.slice(0, at), ...argv.slice(at + words)] };
  }
  return { rest: argv };
}

/** The command a mistyped one probably meant: a group's command ("keys revoke"), a group ("keys <...>") or a single one. */
function meantCommand(words: string[]): string | undefined {
  const [first = '', second] = words;
  const groups = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];
  const group = groups.includes(first) ? first : nearest(first, groups);
  if (group) {
    const subcommands = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.slice(group.length + 1));
    const subcommand = second === undefined ? undefined : nearest(second, subcommands);
    return subcommand ? `${group} ${subcommand}` : `${group} <${subcommands.join('|')}>`;
  }
  return nearest(first, [...COMMANDS.filter((c) => !c.name.includes(' ')).map((c) => c.name), 'version']);
}

/** Names the unknown command by its leading words only: the arguments after them may hold a secret (keys import --key). */
function unknownCommand(argv: string[]): string {
  const at = argv.findIndex((arg) => !arg.startsWith('-'));
  const words: string[] = [];
  for (const arg of at === -1 ? [] : argv.slice(at)) {
    if (arg.startsWith('-') || words.length === 2) break;
    words.push(arg);
  }
  if (words.length === 0) {
    const flag = argv[0]!.split('=')[0]!;
    const meant = nearest(flag, ['--version', '--help']);
    return `unknown option ${flag} before any command${meant ? `; did you mean ${meant}?` : ''}`;
  }
  const meant = meantCommand(words);
  return `unknown command "${words.join(' ')}"${meant ? `; did you mean "${meant}"?` : ''}`;
}

export async function runCli(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === 'version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const { command, rest } = findCommand(argv);
  if (!command) {
    const asked = argv.length === 0 || argv[0] === '--help' || argv[0] === 'help';
    (asked ? process.stdout : process.stderr).write(`${asked ? '' : `${unknownCommand(argv)}\n\n`}${overview()}\n`);
    return asked ? 0 : 2;
  }
  try {
    const input = parseCommandArgs(command, rest);
    if (input.help) {
      process.stdout.write(`${helpText(command)}\n`);
      return 0;
    }
    return (await command.run(input)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`${command.name}: ${error.message}\n\n${helpText(command)}\n`);
      return 2;
    }
    if (error instanceof OperatorError) {
      process.stderr.write(`${command.name}: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`${command.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

// A reader that stops early (`| head`) is not an error of the command.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

// Everything a command creates is its owner's alone (0600 files, 0700 folders): the data folder holds
// key hashes, balances, the ledger and every customer's exports.
process.umask(0o077);

process.exitCode = await runCli(process.argv.slice(2));
