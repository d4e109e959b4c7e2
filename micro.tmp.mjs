import { loadConfig } from './dist/config.js';
import { createContext } from './dist/main.js';
import { createDispatcher } from './dist/http/server.js';
import { createGate, createGateShare } from './dist/http/gate.js';
import { createLookups } from './dist/lookups/index.js';
import { createLogger } from './dist/platform/logger.js';
import { parseIp } from './dist/lookups/ip-address.js';
import fs from 'node:fs';
const config = loadConfig({ NETINTEL_DATA_DIR: '/var/tmp/ni-bench-data', NETINTEL_IMPORT_DEFAULTS: 'false', NETINTEL_RATE_LIMIT_LOCAL: '0', NETINTEL_RATE_LIMIT_NETWORK: '0' });
const log = createLogger(process.env.LVL ?? 'warn', fs.createWriteStream('/dev/null'));
const ctx = createContext(config, log);
const lookups = createLookups(ctx);
const { dispatch, record } = createDispatcher({ ctx, lookups, health: { startedAt: Date.now(), draining: false, inflight: 0 }, gate: createGate(ctx, createGateShare(config)), metricsText: null });
const ips = fs.readFileSync('/work/shared/bench/ips.txt', 'utf8').split('\n').filter(Boolean);
class V { constructor(p) { this.method = 'GET'; this.path = p; this.headers = { host: '127.0.0.1:8097' }; this.ip = '127.0.0.1'; } query() { return {}; } }
const views = ips.map((ip) => new V('/v1/ip/' + ip));
lookups.ip.runSync({ param: '8.8.8.8', query: {}, signal: null });
const geo = ctx.datasets.geo, pfx = ctx.datasets.prefixes;
function bench(name, fn, n = 300000) { const t = performance.now(); for (let i = 0; i < n; i++) fn(i); const us = (performance.now() - t) * 1e3 / n; console.log(name.padEnd(20), us.toFixed(2), 'us'); }
for (let r = 0; r < 2; r++) {
bench('parseIp', (i) => parseIp(ips[i % ips.length]));
bench('geo.lookup', (i) => geo.lookup(ips[i % ips.length]));
bench('prefix.lookup', (i) => pfx.lookup(ips[i % ips.length]));
bench('runSync', (i) => lookups.ip.runSync({ param: ips[i % ips.length], query: {}, signal: null }));
bench('dispatch', (i) => dispatch(views[i % views.length]));
bench('dispatch+record', (i) => { const v = views[i % views.length]; record(v, dispatch(v), performance.now()); });
bench('randomUUID', () => crypto.randomUUID());
}
process.exit(0);
