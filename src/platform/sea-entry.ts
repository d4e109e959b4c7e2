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
  const { runMain } = await import('../cli/commands.js');
  process.exitCode = await runMain(process.argv.slice(2));
}

void main();
