// `netintel keys create|list|revoke`: API key administration on the daemon's store (safe while it runs:
// the daemon picks up new and revoked keys within a few seconds).
import { databasePath } from '../main.js';
import { openDatabase } from '../platform/sqlite.js';
import { KeyNameTaken, KeyRepo } from '../auth/key-repo.js';
import { PLANS, isPlan } from '../auth/keys.js';
import { UsageError, parseArgs } from './args.js';
import type { Command } from './commands.js';

const NAME_SHAPE = /^[\p{L}\p{N}._@ -]{1,64}$/u;

export const keysCommand: Command = async (args, config) => {
  const { positionals, flags } = parseArgs(args, ['plan', 'name']);
  const [sub, ...rest] = positionals;
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') throw new UsageError('keys needs a subcommand: create, list or revoke');
  const db = openDatabase(databasePath(config));
  try {
    const repo = new KeyRepo(db);
    switch (sub) {
      case 'create': {
        const plan = flags['plan'];
        const name = flags['name'];
        if (typeof plan !== 'string' || !isPlan(plan)) throw new UsageError(`keys create needs --plan ${PLANS.join('|')}`);
        if (typeof name !== 'string' || !NAME_SHAPE.test(name) || name.trim() !== name || /^\d+$/.test(name)) {
          throw new UsageError('keys create needs --name NAME: 1 to 64 letters, digits, spaces or . _ @ -, not only digits, no surrounding spaces');
        }
        try {
          const { id, key } = repo.create(name, plan);
          // The key alone on stdout, so scripts can capture it; the rest goes to stderr.
          process.stdout.write(`${key}\n`);
          const allowance = config.planDaily[plan] === 0 ? 'unlimited' : `${config.planDaily[plan]} requests/day`;
          process.stderr.write(`created key ${id} ${JSON.stringify(name)} (plan ${plan}, ${allowance}); it is shown only this once\n`);
          return 0;
        } catch (e) {
          if (e instanceof KeyNameTaken) {
            process.stderr.write(`netintel keys: ${e.message}\n`);
            return 1;
          }
          throw e;
        }
      }
      case 'list': {
        const rows = repo.list();
        if (flags['json'] === true) {
          process.stdout.write(JSON.stringify(rows.map((r) => ({ id: r.id, name: r.name, plan: r.plan, prefix: r.prefix, created_at: r.createdAt, last_used_at: r.lastUsedAt, revoked_at: r.revokedAt, today: r.today })), null, 2) + '\n');
          return 0;
        }
        const table = [['ID', 'NAME', 'PLAN', 'KEY', 'CREATED', 'LAST USED', 'TODAY', 'STATUS']];
        for (const r of rows) {
          table.push([String(r.id), r.name, r.plan, `${r.prefix}…`, r.createdAt, r.lastUsedAt ?? '-', String(r.today), r.revokedAt === null ? 'active' : `revoked ${r.revokedAt}`]);
        }
        const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
        for (const row of table) process.stdout.write(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd() + '\n');
        return 0;
      }
      case 'revoke': {
        const target = rest[0];
        if (target === undefined || rest.length > 1) throw new UsageError('keys revoke needs one key id or name');
        const revoked = repo.revoke(target);
        if (revoked === null) {
          process.stderr.write(`netintel keys: no active key with id or name ${JSON.stringify(target)}\n`);
          return 1;
        }
        process.stdout.write(`revoked key ${revoked.id} ${JSON.stringify(revoked.name)}\n`);
        return 0;
      }
    }
  } finally {
    db.close();
  }
};
