import type { Command } from './commands.js';

// Placeholder until its issue lands.
export const keysCommand: Command = async () => {
  process.stderr.write('netintel keys: not available in this build yet\n');
  return 2;
};
