import type { Command } from './commands.js';

// Placeholder until its issue lands.
export const importCommand: Command = async () => {
  process.stderr.write('netintel import: not available in this build yet\n');
  return 2;
};
