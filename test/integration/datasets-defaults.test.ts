// First start with an empty data directory: the daemon imports the npm default data (slow: ~15–30 s).
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import pino from 'pino';
import { startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/main.js';
import { Metrics } from '../../src/platform/metrics.js';

let daemon: Daemon | null = null;
const dataDir = tempDir('netintel-defaults-');
afterAll(async () => {
  await daemon?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('default data on first start', () => {
  it('imports geo, oui and prefixes from the npm packages and answers from them', { timeout: 90_000 }, async () => {
    daemon = await startDaemon({ dataDir, env: { NETINTEL_IMPORT_DEFAULTS: 'true' }, timeoutMs: 80_000 });
    const done = daemon.logs.find((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('default data imported'));
    expect(done).toBeDefined();
    expect(done!['ms']).toBeTypeOf('number');

    const health = (await (await fetch(`${daemon.url}/`)).json()) as { datasets: Record<string, { loaded: boolean; records: number | null; dataset: string | null }> };
    expect(health.datasets['geo']).toMatchObject({ loaded: true });
    expect(health.datasets['geo']!.dataset).toMatch(/^dbip-city-lite /);
    expect(health.datasets['oui']!.records).toBeGreaterThan(50_000);
    expect(health.datasets['asn']!.records).toBeGreaterThan(500_000);
    await daemon.stop();
    daemon = null;

    // The same store, read back the way the CLI does.
    const ctx = createContext(loadConfig({ NETINTEL_DATA_DIR: dataDir }), pino({ level: 'silent' }), new Metrics({ defaultMetrics: false }));
    try {
      expect(ctx.datasets.prefixes!.lookup('8.8.8.8')).toMatchObject({ asn: 15169, org: 'Google LLC' });
      expect(ctx.datasets.prefixes!.lookup('1.1.1.1')!.asn).toBe(13335);
      expect(ctx.datasets.prefixes!.lookup('2001:4860:4860::8888')!.asn).toBe(15169);
      expect(ctx.datasets.prefixes!.prefixCounts(15169).ipv4).toBeGreaterThan(10);
      expect(ctx.datasets.oui!.lookup('B827EB000000')!.vendor).toMatch(/Raspberry Pi/);
      expect(ctx.datasets.oui!.lookup('70B3D5001000')!.vendor).toBe('SOREDI touch systems GmbH');
      expect(ctx.datasets.geo!.lookup('8.8.8.8')).toMatchObject({ country_code: 'US', city: 'Mountain View' });
      expect(ctx.datasets.geo!.lookup('2001:4860:4860::8888')!.country_code).toBeTypeOf('string');
      expect(ctx.datasets.asns!.get(13335)!.name).toBe('Cloudflare, Inc.');
    } finally {
      ctx.db.close();
    }
  });
});
