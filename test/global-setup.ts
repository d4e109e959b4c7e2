// Integration tests run the built daemon: compile once before any test file runs.
// Type errors are reported by `npm run typecheck` (part of `npm test`); tsc still emits, so tests run on.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export default function setup(): void {
  const root = path.resolve(import.meta.dirname, '..');
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) process.stderr.write(`tsc reported problems (tests run on the emitted JS):\n${r.stdout}${r.stderr}\n`);
}
