// Builds every lookup from the shared context: the HTTP routes and the CLI use the same objects.
import type { AppContext } from '../context.js';
import type { Lookup, LookupName } from './types.js';
import { createIpLookup } from './ip/index.js';
import { createDnsLookup } from './dns/index.js';
import { createWhoisLookup } from './whois/index.js';
import { createSslLookup } from './ssl/index.js';
import { createPingLookup } from './ping/index.js';
import { createMacLookup } from './mac/index.js';
import { createAsnLookup } from './asn/index.js';

export function createLookups(ctx: AppContext): Record<LookupName, Lookup> {
  return {
    ip: createIpLookup(ctx),
    dns: createDnsLookup(ctx),
    whois: createWhoisLookup(ctx),
    ssl: createSslLookup(ctx),
    ping: createPingLookup(ctx),
    mac: createMacLookup(ctx),
    asn: createAsnLookup(ctx),
  };
}
