// Minimal argv parsing: positionals plus --flag / --flag value / --flag=value.

export interface ParsedArgs {
  readonly positionals: string[];
  readonly flags: Record<string, string | true>;
}

export function parseArgs(argv: readonly string[], valueFlags: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else if (valueFlags.includes(a.slice(2)) && i + 1 < argv.length) flags[a.slice(2)] = argv[++i]!;
      else flags[a.slice(2)] = true;
    } else {
      positionals.push(a);
    }
  }
  return { positionals, flags };
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
