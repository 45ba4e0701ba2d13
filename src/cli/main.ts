// The CLI entry point: `npm run cli -- <command> [options]`; every command has --help.

import { accountsCreate, accountsList, accountsSet } from './accounts.js';
import { helpText, parseCommandArgs, UsageError, type Command } from './command.js';
import { generate } from './generate.js';
import { keysCreate, keysList, keysRevoke } from './keys.js';
import { mergeReportCommand, publishCommand } from './publish.js';
import { serve } from './serve.js';
import { mcpCommand } from './mcp.js';
import { AdminError } from '../metering/admin-commands.js';
import { StoreBusyError } from '../db/open-state.js';
import { DeliveryError } from '../catalog/delivery.js';
import { PublishError } from '../catalog/publish/publish.js';

const COMMANDS: Command[] = [serve, mcpCommand, generate, publishCommand, mergeReportCommand, accountsCreate, accountsList, accountsSet, keysCreate, keysList, keysRevoke];

function overview(): string {
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name}`.padEnd(20) + c.summary.split('. ')[0]!.replace(/\.$/, '')),
    '',
    'Every command takes --help; most take --json for machine-readable output.',
  ].join('\n');
}

/** The command named by the longest run of leading words, and the arguments after it. */
function findCommand(argv: string[]): { command?: Command; rest: string[] } {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return { rest: argv };
}

export async function runCli(argv: string[]): Promise<number> {
  const { command, rest } = findCommand(argv);
  if (!command) {
    const asked = argv.length === 0 || argv[0] === '--help' || argv[0] === 'help';
    (asked ? process.stdout : process.stderr).write(`${asked ? '' : `unknown command: ${argv.join(' ')}\n\n`}${overview()}\n`);
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
    if (error instanceof UsageError) {
      process.stderr.write(`${command.name}: ${error.message}\n\n${helpText(command)}\n`);
      return 2;
    }
    if (error instanceof AdminError || error instanceof StoreBusyError || error instanceof DeliveryError || error instanceof PublishError) {
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
