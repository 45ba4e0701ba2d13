// What a CLI command is: a name, options described once (parsing and --help come from them), and a run function.

import { parseArgs } from 'node:util';
import { ConfigError, flagName, loadConfig, SETTINGS, settingHelp, type Config } from '../config.js';
import { nearest } from '../shared/nearest.js';

export interface OptionSpec {
  name: string;
  help: string;
  /** A flag without a value (--json). */
  boolean?: boolean;
  /** Shown in help; the allowed values when `choices` is set. */
  value?: string;
  choices?: readonly string[];
  required?: boolean;
}

export interface Command {
  /** Words after `cli`, e.g. "accounts create". */
  name: string;
  summary: string;
  /** Positional arguments, for the usage line, e.g. "<key_id>". */
  positionals?: string;
  options: OptionSpec[];
  /** Settings of the config table this command takes as flags. */
  settings?: (keyof Config)[];
  run(input: CommandInput): Promise<number | void>;
}

export interface CommandInput {
  options: Record<string, string | boolean | undefined>;
  positionals: string[];
  config: Config;
  json: boolean;
}

export class UsageError extends Error {}

export const JSON_OPTION: OptionSpec = { name: 'json', boolean: true, help: 'print machine-readable JSON' };

export function helpText(command: Command): string {
  const lines = [
    `Usage: npm run cli -- ${command.name}${command.positionals ? ` ${command.positionals}` : ''} [options]`,
    '',
    command.summary,
    '',
    'Options:',
  ];
  for (const option of command.options) {
    const value = option.boolean ? '' : ` <${option.choices ? option.choices.join('|') : (option.value ?? 'value')}>`;
    lines.push(`${`  --${option.name}${value}`.padEnd(33)} ${option.help}${option.required ? ' (required)' : ''}`);
  }
  for (const setting of SETTINGS.filter((s) => command.settings?.includes(s.key))) lines.push(settingHelp(setting));
  lines.push('  --help'.padEnd(34) + 'show this help');
  return lines.join('\n');
}

/** A flag the command does not take, named with the one it probably meant. */
function refuseUnknownOptions(argv: string[], spec: Record<string, { type: 'string' | 'boolean' }>): void {
  const { tokens } = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option' || Object.hasOwn(spec, token.name)) continue;
    const meant = nearest(token.name, Object.keys(spec));
    throw new UsageError(`unknown option ${token.rawName}${meant ? `; did you mean --${meant}?` : ''}`);
  }
}

/** Parses argv for one command; throws UsageError with a message naming the offending option. */
export function parseCommandArgs(command: Command, argv: string[]): CommandInput & { help: boolean } {
  const settingFlags = SETTINGS.filter((s) => command.settings?.includes(s.key));
  const spec: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const option of command.options) spec[option.name] = { type: option.boolean ? 'boolean' : 'string' };
  for (const setting of settingFlags) spec[flagName(setting.key)] = { type: 'string' };
  refuseUnknownOptions(argv, spec);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  // Help needs no settings: a bad one in the environment must not hide it.
  if (values.help) return { options: values, positionals: parsed.positionals, config: loadConfig({}, {}), json: false, help: true };
  for (const option of command.options) {
    const value = values[option.name];
    if (option.required && value === undefined) throw new UsageError(`--${option.name} is required`);
    if (option.choices && typeof value === 'string' && !option.choices.includes(value)) {
      const meant = nearest(value, option.choices);
      throw new UsageError(
        `--${option.name} must be one of ${option.choices.join(', ')}; got "${value}"${meant ? `; did you mean "${meant}"?` : ''}`,
      );
    }
  }
  const flags: Partial<Record<keyof Config, string>> = {};
  for (const setting of settingFlags) {
    const value = values[flagName(setting.key)];
    if (typeof value === 'string') flags[setting.key] = value;
  }
  let config: Config;
  try {
    config = loadConfig(flags);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  return { options: values, positionals: parsed.positionals, config, json: values.json === true, help: false };
}
