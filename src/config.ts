// One table of settings: each has a flag, an environment variable derived from its name, a default and help.

import { resolve } from 'node:path';
import { nearest } from './shared/nearest.js';
import { parseS3Url } from './storage/s3-url.js';

export interface Config {
  host: string;
  port: number;
  snapshotsDir: string;
  dataDir: string;
  objectStore: string;
  databaseUrl: string;
  stateBuffers: string;
  logLevel: string;
  queryTimeoutMs: number;
  documentCacheMb: number;
  shutdownTimeoutMs: number;
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  trustProxy: string;
  corsOrigins: string;
  upgradeUrl: string;
  catalogPollMs: number;
  exportLeaseMs: number;
  exportFileRecords: number;
  ledgerCompactMs: number;
  nodeLeaseMs: number;
  mcpSessionIdleMs: number;
  progressLogMs: number;
}

/** A folder is resolved to an absolute path when the configuration is built, so no consumer depends on the working directory. */
type Kind = 'string' | 'integer' | 'folder';

export interface Setting {
  key: keyof Config;
  kind: Kind;
  default: string;
  help: string;
  /** The only values accepted. */
  choices?: readonly string[];
  /** Why a value is refused (null when it is accepted), with an example of one that is. */
  check?: (raw: string) => string | null;
}

export const SETTINGS: readonly Setting[] = [
  { key: 'host', kind: 'string', default: '127.0.0.1', help: 'interface to listen on (0.0.0.0 for every interface)' },
  { key: 'port', kind: 'integer', default: '8080', help: 'TCP port of the HTTP API (0 picks a free port)' },
  { key: 'snapshotsDir', kind: 'folder', default: './snapshots', help: 'folder of the immutable catalog and registry publications' },
  {
    key: 'dataDir',
    kind: 'folder',
    default: './data',
    help: 'folder of mutable state: the embedded state store, export files, ledger, secrets',
  },
  {
    key: 'objectStore',
    kind: 'string',
    default: '',
    help: 'S3-compatible object store shared by every node (s3://bucket/prefix; endpoint and credentials from AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); empty keeps everything in the local folders',
    check: (raw) => (raw === '' || parseS3Url(raw) ? null : 'must be s3://bucket/prefix (e.g. s3://jobs-data/prod)'),
  },
  {
    key: 'databaseUrl',
    kind: 'string',
    default: '',
    help: 'PostgreSQL URL of a shared state store; empty means the embedded store under the data folder',
  },
  {
    key: 'stateBuffers',
    kind: 'string',
    default: '128MB',
    help: "shared buffers of the embedded state store in a server (PostgreSQL's shared_buffers, e.g. 128MB, 16MB on a small machine: set up at every start); a CLI command uses 16MB",
    check: (raw) => (/^[1-9]\d*(kB|MB|GB)$/.test(raw) ? null : 'must be a size in kB, MB or GB (e.g. 128MB)'),
  },
  {
    key: 'logLevel',
    kind: 'string',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    help: 'pino log level',
  },
  { key: 'queryTimeoutMs', kind: 'integer', default: '10000', help: 'a search running longer than this is stopped with 504 query_timeout' },
  {
    key: 'documentCacheMb',
    kind: 'integer',
    default: '64',
    help: 'MB of job documents kept in memory per open catalog snapshot, the most recently read (pages and searches read them again without a system call); 0 keeps none',
  },
  {
    key: 'shutdownTimeoutMs',
    kind: 'integer',
    default: '10000',
    help: 'on SIGTERM, how long in-flight requests may take before the process exits anyway (exit code 1, naming how many were cut)',
  },
  {
    key: 'keepAliveTimeoutMs',
    kind: 'integer',
    default: '65000',
    help: 'an idle keep-alive connection stays open this long; keep it above the idle timeout of the load balancer in front (60 s on most)',
  },
  {
    key: 'headersTimeoutMs',
    kind: 'integer',
    default: '20000',
    help: 'the request line and headers must arrive within this time of their first byte, or 408 request_timeout (at most --request-timeout-ms)',
  },
  {
    key: 'requestTimeoutMs',
    kind: 'integer',
    default: '30000',
    help: 'a whole request, body included, must arrive within this time of its first byte, or 408 request_timeout',
  },
  { key: 'maxConnections', kind: 'integer', default: '1024', help: 'open HTTP connections at most; one more is closed at once' },
  {
    key: 'trustProxy',
    kind: 'string',
    default: '',
    help: 'proxies whose X-Forwarded-For names the client address (Express trust proxy: loopback, 10.0.0.0/8, a hop count); empty trusts none',
  },
  {
    key: 'corsOrigins',
    kind: 'string',
    default: '*',
    help: 'origins whose browser apps may call the API (CORS): * for any, a comma list of origins (https://app.example.com), or none',
  },
  { key: 'catalogPollMs', kind: 'integer', default: '2000', help: 'how often the server looks for a new catalog or registry publication' },
  {
    key: 'exportLeaseMs',
    kind: 'integer',
    default: '60000',
    help: 'a running export whose server has not renewed its hold for this long is taken up by another (after a crash)',
  },
  {
    key: 'exportFileRecords',
    kind: 'integer',
    default: '10000',
    help: 'jobs per export file, at most 10000 (smaller files: more of them, each quicker to download and retry)',
    // Whole numbers only: the integer kind refuses the rest after this check.
    check: (raw) => (Number(raw) >= 1 && Number(raw) <= 10_000 ? null : 'must be a whole number from 1 to 10000 (e.g. 10000)'),
  },
  {
    key: 'ledgerCompactMs',
    kind: 'integer',
    default: '60000',
    help: 'how often settled ledger rows are moved from the state store into Parquet segments under data/ledger (or ledger/ of the object store)',
  },
  {
    key: 'nodeLeaseMs',
    kind: 'integer',
    default: '30000',
    help: 'a server sharing the state store that has not renewed its registration for this long has stopped: the requests it left unanswered are settled, not charged',
  },
  {
    key: 'mcpSessionIdleMs',
    kind: 'integer',
    default: '1800000',
    help: 'an MCP session at /mcp that sees no request for this long is closed and its saved files deleted',
  },
  {
    key: 'upgradeUrl',
    kind: 'string',
    default: 'https://jobs-data.example.com/pricing',
    help: 'page named by the upgrade_url of 403 upgrade_required',
  },
  {
    key: 'progressLogMs',
    kind: 'integer',
    default: '5000',
    help: 'while a catalog snapshot opens for serving, how often a log line says what it is doing and how far (0: never)',
  },
];

/** `snapshotsDir` → `--snapshots-dir`. */
export function flagName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `snapshotsDir` → `JPS_SNAPSHOTS_DIR`. */
export function envName(key: string): string {
  return `JPS_${flagName(key).replace(/-/g, '_').toUpperCase()}`;
}

export class ConfigError extends Error {}

/** How `origin` (a flag or an environment variable) is given a value, e.g. `--port 8080` or `JPS_PORT=8080`. */
function example(origin: string, value: string): string {
  return origin.startsWith('--') ? `${origin} ${value}` : `${origin}=${value}`;
}

function parseValue(setting: Setting, raw: string, origin: string): string | number {
  if (setting.choices && !setting.choices.includes(raw)) {
    const meant = nearest(raw, setting.choices);
    throw new ConfigError(
      `${origin} must be one of ${setting.choices.join(', ')} (e.g. ${example(origin, setting.default)}); got "${raw}"${meant ? `; did you mean "${meant}"?` : ''}`,
    );
  }
  const refused = setting.check?.(raw);
  if (refused) throw new ConfigError(`${origin} ${refused}; got "${raw}"`);
  if (setting.kind === 'string') return raw;
  if (setting.kind === 'folder') {
    if (raw === '') throw new ConfigError(`${origin} must name a folder (e.g. ${example(origin, setting.default)})`);
    return resolve(raw);
  }
  if (!/^\d+$/.test(raw))
    throw new ConfigError(`${origin} must be a whole number (e.g. ${example(origin, setting.default)}); got "${raw}"`);
  return Number(raw);
}

/**
 * Builds the configuration: a flag wins over the environment, the environment over the default.
 * `flags` holds only the settings given on the command line, keyed by setting key.
 */
export function loadConfig(flags: Partial<Record<keyof Config, string>> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, string | number> = {};
  for (const setting of SETTINGS) {
    const fromFlag = flags[setting.key];
    const fromEnv = env[envName(setting.key)];
    if (fromFlag !== undefined) config[setting.key] = parseValue(setting, fromFlag, `--${flagName(setting.key)}`);
    else if (fromEnv !== undefined && fromEnv !== '') config[setting.key] = parseValue(setting, fromEnv, envName(setting.key));
    else config[setting.key] = parseValue(setting, setting.default, setting.key);
  }
  return config as unknown as Config;
}

/** One line of --help for a setting: its flag, what it takes, its help, its environment variable and default. */
export function settingHelp(setting: Setting): string {
  return `${`  --${flagName(setting.key)} <${setting.choices?.join('|') ?? 'value'}>`.padEnd(33)} ${setting.help} (env ${envName(setting.key)}, default "${setting.default}")`;
}

export function settingsHelp(keys: readonly (keyof Config)[]): string {
  return SETTINGS.filter((s) => keys.includes(s.key))
    .map(settingHelp)
    .join('\n');
}
