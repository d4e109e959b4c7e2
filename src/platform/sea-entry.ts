// Entry of the single executable's bundle (scripts/build-binary.mjs). One bundle plays both parts: the
// CLI on the main thread, and each HTTP worker thread, which main.ts starts by evaluating this same
// bundle from its SEA asset (a worker of the executable cannot load dist/worker.js: there is no dist/).
// The modules are imported lazily so that a worker never runs the CLI and the CLI never runs a worker.
import { isMainThread } from 'node:worker_threads';

async function main(): Promise<void> {
  if (!isMainThread) {
    await import('../worker.js');
    return;
  }
  // Same as src/cli.ts (which the bundle cannot use as its entry: a CommonJS bundle has no top-level await).
  process.env['UWS_HTTP_MAX_HEADERS_SIZE'] ??= '16384';
  const { ConfigError } = await import('../config.js');
  const { runCli } = await import('../cli/commands.js');
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
}

void main();
