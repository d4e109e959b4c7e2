import type { Command } from './commands.js';

// Placeholder until its issue lands.
export const refreshCommand: Command = async () => {
  process.stderr.write('netintel refresh: not available in this build yet\n');
  return 2;
};
