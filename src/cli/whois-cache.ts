import type { Command } from './commands.js';

// Placeholder until its issue lands.
export const whoisCacheCommand: Command = async () => {
  process.stderr.write('netintel whois-cache: not available in this build yet\n');
  return 2;
};
