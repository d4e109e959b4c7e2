// /docs in a real browser (Debian chromium driven by playwright-core): the console runs a live lookup,
// and a page from another origin calls the API with fetch, including a preflighted Authorization header.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { ROOT, startDaemon, type Daemon } from '../helpers/daemon.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
if (CHROMIUM === undefined && process.env['CI']) throw new Error('chromium is not installed (Debian package chromium); .ci/run installs it');

describe.skipIf(CHROMIUM === undefined)('docs page in a browser', () => {
  let d: Daemon;
  let browser: Browser;
  let other: http.Server;
  let otherOrigin: string;
  const outDir = path.join(ROOT, 'test-results');

  beforeAll(async () => {
    d = await startDaemon();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    other = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other origin</title>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    // "localhost" vs "127.0.0.1": a different origin from the daemon's.
    otherOrigin = `http://localhost:${(other.address() as { port: number }).port}`;
    fs.mkdirSync(outDir, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    other?.close();
    await d?.stop();
  });

  it('renders the reference without errors and runs a lookup from the console', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${d.url}/docs`);
    expect(await page.title()).toBe('netintel API reference');
    for (const id of ['ip', 'dns', 'whois', 'ssl', 'ping', 'mac', 'asn', 'errors', 'limits', 'grade', 'data', 'config']) {
      expect(await page.locator(`#${id}`).count(), id).toBe(1);
    }
    await page.locator('#console-asn input[name=param]').fill('AS64512');
    await page.locator('#console-asn button').click();
    const out = page.locator('#console-asn pre.out');
    await expect.poll(async () => (await out.textContent()) ?? '', { timeout: 10_000 }).toMatch(/^HTTP \d{3}\n\{/);
    const text = (await out.textContent())!;
    const body = JSON.parse(text.slice(text.indexOf('\n') + 1)) as Record<string, unknown>;
    expect(body).toBeTypeOf('object');
    expect(await page.locator('#console-asn code.curl').textContent()).toBe(`curl -s '${d.url}/v1/asn/AS64512'`);
    await page.locator('#asn').screenshot({ path: path.join(outDir, 'docs-console.png') });
    await page.screenshot({ path: path.join(outDir, 'docs.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lets a page from another origin call the API, including a preflight with Authorization', async () => {
    const page = await browser.newPage();
    await page.goto(otherOrigin);
    const result = await page.evaluate(async (base) => {
      const plain = await fetch(`${base}/`);
      const withAuth = await fetch(`${base}/v1/asn/AS64512`, { headers: { Authorization: 'Bearer ni_not_a_real_key' } });
      return {
        plain: plain.status,
        plainBody: ((await plain.json()) as { name: string }).name,
        auth: withAuth.status,
        authBody: (await withAuth.json()) as Record<string, unknown>,
        requestId: withAuth.headers.get('x-request-id'),
      };
    }, d.url);
    expect(result.plain).toBe(200);
    expect(result.plainBody).toBe('netintel');
    // The preflight passed (otherwise fetch would have thrown): the answer itself is readable JSON.
    expect(typeof result.auth).toBe('number');
    expect(result.authBody).toHaveProperty(result.auth === 200 ? 'query' : 'code');
    expect(result.requestId).toBeTruthy();
    // Request log lines are written in batches, at most ~100 ms late.
    await expect.poll(() => d.logs.filter((l) => l['route'] === 'preflight').length, { timeout: 5000 }).toBeGreaterThan(0);
    await page.close();
  });
});
