#!/usr/bin/env node
// netintel serve | import | refresh | lookup | keys | whois-cache | version
import { ConfigError } from './config.js';
import { runCli } from './cli/commands.js';

// uWS refuses request lines over its header budget before our 414 can answer; give it room.
process.env['UWS_HTTP_MAX_HEADERS_SIZE'] ??= '16384';

try {
  process.exitCode = await runCli(process.argv.slice(2));
} catch (e) {
  if (e instanceof ConfigError) {
    for (const line of e.problems) process.stderr.write(`netintel: config: ${line}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`netintel: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}
