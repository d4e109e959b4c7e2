// The CLI's command table. Each command lives in its own module and receives the parsed arguments.
import { createRequire } from 'node:module';
import { ConfigError, loadConfig } from '../config.js';
import { UsageError, parseArgs } from './args.js';
import { serveCommand } from './serve.js';
import { lookupCommand } from './lookup.js';
import { importCommand } from './import.js';
import { refreshCommand } from './refresh.js';
import { keysCommand } from './keys.js';
import { whoisCacheCommand } from './whois-cache.js';
import { embeddedVersion } from '../platform/runtime.js';

export const USAGE = `Usage: netintel <command> [options]

Commands:
  serve                                   run the daemon (config from NETINTEL_* variables)
  import <dataset> <file-or-url>...       import a dataset: geo, oui, rir, asnames, prefixes, rdap-bootstrap, ct-logs
  refresh [dataset] [--force] [--rollback]  refresh datasets from their configured sources
  lookup <ip|dns|whois|ssl|mac|asn|ping> <arg> [--type T]   run one lookup and print its JSON
  keys create --plan developer|pro|business --name NAME | keys list | keys revoke <id-or-name>
  whois-cache export <file> | whois-cache import <file>
  version                                 print the version

Options: --help, --version
`;

export type Command = (args: string[], config: ReturnType<typeof loadConfig>) => Promise<number>;

const COMMANDS: Readonly<Record<string, Command>> = {
  serve: serveCommand,
  lookup: lookupCommand,
  import: importCommand,
  refresh: refreshCommand,
  keys: keysCommand,
  'whois-cache': whoisCacheCommand,
};

export function version(): string {
  // The single executable carries no package.json: its version is embedded at build time.
  const embedded = embeddedVersion();
  if (embedded !== null) return embedded;
  const require = createRequire(import.meta.url);
  return (require('../../package.json') as { version: string }).version;
}

export async function runCli(argv: readonly string[]): Promise<number> {
  const { positionals, flags } = parseArgs(argv.slice(0, 1));
  const name = positionals[0];
  if (flags['version'] === true || name === 'version') {
    process.stdout.write(`netintel ${version()}\n`);
    return 0;
  }
  if (flags['help'] === true || name === 'help' || name === undefined) {
    process.stdout.write(USAGE);
    return name === undefined && flags['help'] !== true ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`netintel: unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
    return 2;
  }
  const rest = argv.slice(1);
  if (rest.includes('--help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    return await command(rest, loadConfig());
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`netintel ${name}: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
}

/** The whole CLI process: run the command, report config and unexpected errors as one line each, return the exit code. */
export async function runMain(argv: readonly string[]): Promise<number> {
  // uWS refuses request lines over its header budget before our 414 can answer; give it room.
  process.env['UWS_HTTP_MAX_HEADERS_SIZE'] ??= '16384';
  try {
    return await runCli(argv);
  } catch (e) {
    if (e instanceof ConfigError) {
      for (const line of e.problems) process.stderr.write(`netintel: config: ${line}\n`);
      return 2;
    }
    process.stderr.write(`netintel: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
