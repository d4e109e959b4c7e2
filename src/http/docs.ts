// GET /docs: a self-contained HTML reference (no external assets: air-gapped sites read it too).
import { ENDPOINTS } from '../lookups/types.js';

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  ip: 'Geolocation of an IPv4 or IPv6 address (city, region, country, coordinates, time zone, ASN and prefix), with bogon detection.',
  dns: 'DNS records of one type (A, AAAA, MX, TXT, NS, CNAME, SOA, CAA, SRV) through the configured DNS-over-HTTPS resolver.',
  whois: 'Registration data of a domain from RDAP, with a port-43 WHOIS fallback, served from a local cache.',
  ssl: 'TLS certificate, chain, trust, protocol support, a letter grade and certificate-transparency history.',
  ping: 'Four HTTP round trips to a host: min/avg/max round-trip time and loss.',
  mac: 'IEEE registry vendor of a MAC address or OUI prefix.',
  asn: 'An AS number, or the origin AS and covering prefix of an IP address.',
};

const EXAMPLES: Readonly<Record<string, string>> = {
  ip: '/v1/ip/8.8.8.8', dns: '/v1/dns/example.com?type=MX', whois: '/v1/whois/example.com', ssl: '/v1/ssl/example.com',
  ping: '/v1/ping/example.com', mac: '/v1/mac/B8:27:EB:12:34:56', asn: '/v1/asn/AS13335',
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function docsHtml(docsUrl: string): string {
  const rows = ENDPOINTS.map(
    (e) => `<tr><td><code>GET ${escapeHtml(e.template)}</code></td><td>${escapeHtml(DESCRIPTIONS[e.name] ?? '')}</td><td><code>${escapeHtml(EXAMPLES[e.name] ?? '')}</code></td></tr>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>netintel API reference</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
code{background:#f4f4f4;padding:0 .2rem}</style></head>
<body>
<h1>netintel API reference (v1)</h1>
<p>Every operation is an HTTP <code>GET</code> that returns JSON, with CORS open to any origin. No API key is needed on the free tier.
The machine-readable contract is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). This page: <code>${escapeHtml(docsUrl)}</code>.</p>
<h2>Endpoints</h2>
<table><thead><tr><th>Operation</th><th>Returns</th><th>Example</th></tr></thead><tbody>
<tr><td><code>GET /</code></td><td>Health: status, datasets, uptime.</td><td><code>/</code></td></tr>
${rows}
</tbody></table>
<h2>Errors</h2>
<p>Errors are JSON: <code>{"error": "...", "code": "...", "docs": "..."}</code>. Codes: <code>invalid_ip</code>, <code>invalid_domain</code>,
<code>invalid_mac</code>, <code>invalid_asn</code>, <code>invalid_host</code>, <code>invalid_type</code> (400); <code>invalid_api_key</code> (401);
<code>target_forbidden</code> (403); <code>not_found</code> (404); <code>method_not_allowed</code> (405); <code>uri_too_long</code> (414);
<code>unsupported_tld</code> (422); <code>rate_limited</code> (429); <code>internal_error</code> (500); <code>not_implemented</code> (501);
<code>upstream_error</code> (502); <code>dataset_unavailable</code>, <code>draining</code> (503); <code>upstream_timeout</code> (504).</p>
<h2>Data and attribution</h2>
<p>IP geolocation by <a href="https://db-ip.com">DB-IP</a> (CC BY 4.0), ASN data from RouteViews, the RIRs and DB-IP via ip-location-db (CC BY 4.0),
MAC vendors from the IEEE Registration Authority (via oui-data).</p>
</body></html>
`;
}
