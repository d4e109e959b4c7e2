// GET /docs: one self-contained HTML reference (no external assets: air-gapped sites read it too).
// Readable without JavaScript; with it, each endpoint gets a small live console.
import { GRADE_RUBRIC } from '../lookups/ssl/grade.js';
import { ENDPOINTS, type LookupName } from '../lookups/types.js';
import { STATUS_OF } from './errors.js';

interface EndpointDoc {
  readonly summary: string;
  readonly input: string;
  readonly fields: string;
  readonly example: string;
}

const ENDPOINT_DOCS: Readonly<Record<LookupName, EndpointDoc>> = {
  ip: {
    summary: 'Geolocation of an address from the local mmdb, its origin AS and covering prefix, and bogon detection.',
    input: 'IPv4 dotted quad (no leading zeros: <code>010.1.1.1</code> is rejected), IPv6 in any RFC 4291/5952 form, IPv4-mapped IPv6 (answered as the IPv4 address). Hostnames, CIDRs and zone ids are rejected.',
    fields: 'ip, version, city, region, region_code, country, country_code, continent, postal, latitude, longitude, accuracy_radius_km, timezone, asn, as_name, isp (<code>"AS15169 Google LLC"</code>), prefix, bogon, bogon_reason, source. Private, loopback, link-local, CGNAT, documentation, multicast and other special-purpose addresses answer 200 with <code>bogon: true</code> and a <code>bogon_reason</code>.',
    example: '8.8.8.8',
  },
  dns: {
    summary: 'Records of one type through the configured DNS-over-HTTPS (or UDP/TCP) resolvers, cached by TTL.',
    input: 'A host name (1–253 octets, labels 1–63, letters, digits, hyphen, underscore, optional trailing dot; Unicode names are converted to punycode). Query <code>type</code>: A, AAAA, MX, TXT, NS, CNAME, SOA, CAA, SRV (case-insensitive, default A).',
    fields: 'domain, type, status (the RCODE name: NOERROR, NXDOMAIN, SERVFAIL, ...), authenticated (AD bit), records (answer section in order: name, type, ttl, data in presentation format, plus parsed fields per type), authority (the SOA on NXDOMAIN/NODATA), resolver, query_time_ms, cached, source. NXDOMAIN and empty answers are 200s.',
    example: 'example.com',
  },
  whois: {
    summary: 'Registration data: RDAP first (IANA bootstrap), port-43 WHOIS fallback with referrals, stored in a local cache.',
    input: 'A domain name (IDN accepted); the registrable domain is looked up (<code>www.example.co.uk</code> → <code>example.co.uk</code>). <code>?raw=true</code> adds the raw answer.',
    fields: 'domain, unicode_domain, registered, source_type (rdap or whois), registrar {name, iana_id, url, abuse_email, abuse_phone}, registered_at, expires_at, updated_at, status, nameservers, dnssec, registrant {name, organization, country, email, redacted}, servers {rdap, whois}, cached, fetched_at, source. A domain that does not exist answers 200 with <code>registered: false</code>; when the registry fails, a stale cached record is served with <code>stale: true</code>.',
    example: 'example.com',
  },
  ssl: {
    summary: 'The certificate, chain, trust, protocol support, a letter grade and certificate-transparency history.',
    input: 'A host name or IP literal with an optional <code>:port</code> (default 443). The target must pass the probe policy.',
    fields: 'domain, port, address, issuer, subject, san, valid_from, expires_at, days_until_expiry, serial_number, fingerprint_sha256, signature_algorithm, key {type, bits, curve}, protocol, cipher, protocols, trusted, trust_error, hostname_match, hsts {enabled, max_age}, chain, grade, grade_ignoring_trust, grade_reasons, ct {scts, history}, cached, checked_at, source.',
    example: 'example.com',
  },
  ping: {
    summary: 'Four HTTP round trips (HEAD, GET on 405) over one kept-alive connection: min/avg/max round-trip time and loss. Not ICMP.',
    input: 'A host name or IP literal (IPv6 bracketed or bare) with an optional <code>:port</code>. HTTPS is tried first (443), then plain HTTP (80).',
    fields: 'host, address, url, method, sent, received, packet_loss (percent), reachable, min_ms, avg_ms, max_ms, connect_ms, timings [{seq, rtt_ms, status, error}], error. An unreachable or unresolvable target is a 200 with <code>reachable: false</code>.',
    example: 'example.com',
  },
  mac: {
    summary: 'The IEEE registry assignment (MA-L, MA-M, MA-S, IAB, CID) holding a MAC address, longest match first.',
    input: 'Any case with <code>:</code>, <code>-</code>, <code>.</code> or no separators, in groups of 2 (<code>00:1A:2B:3C:4D:5E</code>), 4 (<code>001a.2b3c.4d5e</code>) or 6 (<code>001A2B-3C4D5E</code>); or a prefix of 6, 7 or 9 hex digits.',
    fields: 'mac, prefix, prefix_bits, registry, assigned, vendor, address, country, block {start, end, size}, multicast, locally_administered, randomized, source. Locally administered unicast addresses answer <code>randomized: true</code>.',
    example: 'B8:27:EB:12:34:56',
  },
  asn: {
    summary: 'An AS number (name, registry, allocation, announced prefixes) or the origin AS and covering prefix of an IP.',
    input: '<code>AS13335</code>, <code>as13335</code>, <code>13335</code>, asdot <code>AS1.10</code> (= 65546), 0–4294967295; or an IP address as for /v1/ip.',
    fields: 'query, asn, name, description, country, rir, allocated, status, reserved, ip, prefix, announced, prefixes {ipv4, ipv6}, source. Private, reserved and documentation ASNs answer <code>reserved: true</code>; an IP no prefix covers answers <code>announced: false</code>.',
    example: 'AS13335',
  },
};

const ERROR_WHEN: Readonly<Record<string, string>> = {
  invalid_ip: 'malformed IP address', invalid_domain: 'malformed domain name', invalid_mac: 'malformed MAC address',
  invalid_asn: 'malformed AS number or out of range', invalid_host: 'malformed ping/ssl target', invalid_type: 'DNS type not supported',
  invalid_parameter: 'malformed query parameter',
  invalid_api_key: 'malformed, unknown or revoked bearer key, or no key where keys are required', target_forbidden: 'ping/ssl target denied by the probe policy',
  not_found: 'unknown path (including /v2/...)', method_not_allowed: 'a method other than GET or OPTIONS', uri_too_long: 'path over 2,048 bytes',
  unsupported_tld: 'no RDAP and no WHOIS server is known for the TLD', rate_limited: 'over the allowance (see Retry-After)',
  internal_error: 'a bug; the message is generic and the request id is logged', not_implemented: 'the lookup is not part of this build',
  upstream_error: 'the resolver, registry or target failed or answered garbage', dataset_unavailable: 'a needed dataset was never loaded',
  draining: 'the daemon is shutting down', overloaded: 'too many network lookups in progress', upstream_timeout: 'an upstream did not answer in time',
};

const CONFIG_DOCS: readonly [string, string][] = [
  ['NETINTEL_HOST, NETINTEL_PORT', 'listen address and port (0 = any free port)'],
  ['NETINTEL_DATA_DIR', 'data directory'],
  ['NETINTEL_PUBLIC_URL, NETINTEL_DOCS_URL', 'base URL clients use; docs address in health and errors'],
  ['NETINTEL_LOG_LEVEL', 'pino level'],
  ['NETINTEL_METRICS_PORT', 'serve /metrics on its own port'],
  ['NETINTEL_WORKERS', 'HTTP worker threads'],
  ['NETINTEL_DOH_URL', 'resolvers in order: https:// (DoH), udp://host:port, tcp://host:port'],
  ['NETINTEL_EXTRA_CA', 'PEM file trusted in addition to the system CAs'],
  ['NETINTEL_RDAP_BOOTSTRAP, NETINTEL_WHOIS_SERVER, NETINTEL_WHOIS_TTL', 'RDAP bootstrap source, root WHOIS server, cache freshness'],
  ['NETINTEL_CT_LOG_LIST, NETINTEL_CT_SEARCH_URL', 'CT log list source; optional crt.sh-style search'],
  ['NETINTEL_PING_TIMEOUT_MS', 'per ping round trip'],
  ['NETINTEL_PROBE_ALLOW, NETINTEL_PROBE_DENY', 'CIDRs for ping/ssl targets (ALLOW wins)'],
  ['NETINTEL_RATE_LIMIT_LOCAL, NETINTEL_RATE_LIMIT_NETWORK', 'free-tier requests per minute per client IP (0 = off)'],
  ['NETINTEL_TRUSTED_PROXIES', 'CIDRs whose X-Forwarded-For is believed'],
  ['NETINTEL_AUTH_REQUIRED', 'refuse requests without a valid key'],
  ['NETINTEL_STALE_AFTER', 'dataset age that makes health degraded'],
  ['NETINTEL_REFRESH_SCHEDULE, NETINTEL_REFRESH_TZ', 'node-cron schedule of the dataset refresh'],
  ['NETINTEL_SOURCE_GEO, _OUI, _RIR, _ASNAMES, _PREFIXES', 'refresh sources (URLs or paths)'],
];

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function rubricHtml(): string {
  const r = GRADE_RUBRIC;
  const list = (items: readonly Record<string, unknown>[]): string =>
    items.map((i) => `<li>${esc(Object.entries(i).map(([k, v]) => `${k.replace(/_/g, ' ')} ${String(v)}`).join(', '))}</li>`).join('');
  return `<p>${esc(r.summary)}</p>
<ul>
<li><b>Protocol (30%)</b>: ${esc(r.protocol.text)}<ul>${list(r.protocol.scores)}</ul></li>
<li><b>Key exchange (30%)</b>: ${esc(r.key_exchange.text)}<ul>${list(r.key_exchange.scores)}</ul></li>
<li><b>Cipher (40%)</b>: ${esc(r.cipher.text)}<ul>${list(r.cipher.scores)}</ul></li>
</ul>
<p>Letters: ${r.letters.map((l) => `${esc(l.letter)} ≥ ${l.min_score}`).join(', ')}.</p>
<p>Caps (each applied cap is listed in <code>grade_reasons</code>):</p>
<ul>${r.caps.map((c) => `<li><code>${esc(c.rule)}</code>: at most ${esc(c.cap)} when ${esc(c.when)}</li>`).join('')}</ul>
<p>${esc(r.a_plus)}</p><p>${esc(r.trust)}</p>`;
}

const CONSOLE_JS = `
for (const c of document.querySelectorAll('code.curl')) c.textContent = c.textContent.replace("'/", "'" + location.origin + '/');
for (const form of document.querySelectorAll('form.console')) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const out = form.querySelector('pre.out');
    const curl = form.querySelector('code.curl');
    const value = form.querySelector('input[name=param]').value;
    const type = form.querySelector('select[name=type]');
    const path = form.dataset.path + encodeURIComponent(value) + (type ? '?type=' + type.value : '');
    const url = location.origin + path;
    curl.textContent = "curl -s '" + url + "'";
    out.textContent = 'loading…';
    out.dataset.status = '';
    try {
      const res = await fetch(path);
      const text = await res.text();
      let pretty = text;
      try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) {}
      out.dataset.status = String(res.status);
      out.textContent = 'HTTP ' + res.status + '\\n' + pretty;
    } catch (e) {
      out.textContent = 'request failed: ' + e;
    }
  });
}`;

export function docsHtml(docsUrl: string): string {
  const sections = ENDPOINTS.map((e) => {
    const d = ENDPOINT_DOCS[e.name];
    const prefix = e.template.slice(0, e.template.indexOf('{'));
    const typeSelect =
      e.name === 'dns'
        ? `<select name="type" aria-label="record type">${['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA', 'CAA', 'SRV'].map((t) => `<option>${t}</option>`).join('')}</select>`
        : '';
    return `<section id="${e.name}">
<h3><code>${esc(e.health)}</code></h3>
<p>${d.summary}</p>
<p><b>Input</b>: ${d.input}</p>
<p><b>Fields</b>: ${d.fields}</p>
<form class="console" data-path="${esc(prefix)}" id="console-${e.name}">
<label>Try it: <input name="param" value="${esc(d.example)}" size="36"></label> ${typeSelect}
<button type="submit">Send</button>
<div><code class="curl">curl -s '${esc(prefix + d.example)}'</code></div>
<pre class="out" aria-live="polite"></pre>
</form>
</section>`;
  }).join('\n');
  const errors = Object.entries(STATUS_OF)
    .sort((a, b) => a[1] - b[1])
    .map(([code, status]) => `<tr><td>${status}</td><td><code>${code}</code></td><td>${esc(ERROR_WHEN[code] ?? '')}</td></tr>`)
    .join('\n');
  const config = CONFIG_DOCS.map(([k, v]) => `<tr><td><code>${esc(k)}</code></td><td>${esc(v)}</td></tr>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>netintel API reference</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.35rem;text-align:left;vertical-align:top}
code{background:#f3f3f3;padding:0 .2rem;border-radius:3px}section{border-top:1px solid #ccc;margin-top:1.5rem}
form.console{background:#fafafa;border:1px solid #e3e3e3;padding:.6rem;border-radius:6px}
pre.out{background:#111;color:#e8e8e8;padding:.6rem;max-height:24rem;overflow:auto;white-space:pre-wrap}
pre.out:empty{display:none}nav a{margin-right:.8rem}
</style></head>
<body>
<h1>netintel API reference (v1)</h1>
<p>Every operation is an HTTP <code>GET</code> returning JSON (<code>Content-Type: application/json; charset=utf-8</code>) with open CORS
headers; <code>OPTIONS</code> answers preflights. No key is needed on the free tier. The machine-readable contract is
<a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). This page's address: <code>${esc(docsUrl)}</code>.</p>
<nav>${ENDPOINTS.map((e) => `<a href="#${e.name}">${e.name}</a>`).join('')}<a href="#errors">errors</a><a href="#limits">limits</a><a href="#grade">SSL grade</a><a href="#data">data</a><a href="#config">configuration</a></nav>
<h2>Endpoints</h2>
<section id="health"><h3><code>GET /</code></h3><p>Health: name, version <code>v1</code>, status (<code>operational</code>,
<code>degraded</code> when a dataset is missing or stale, <code>draining</code> with 503 during shutdown), docs, the endpoint list, datasets
(loaded, version, build and load time, records, stale) and uptime_seconds.</p></section>
${sections}
<h2 id="conventions">Conventions</h2>
<p>Field names are snake_case; timestamps are ISO 8601 UTC; a field without a value is <code>null</code>, never omitted. Every lookup carries
<code>source</code> (the datasets or upstreams used, with versions). Path parameters are percent-decoded once; surrounding whitespace is
rejected. <code>Cache-Control</code>: ip, mac, asn <code>public, max-age=3600</code>; dns the remaining TTL; whois and ssl the remaining
freshness; ping, health and errors <code>no-store</code>. Every response has an <code>X-Request-Id</code>.</p>
<h2 id="errors">Errors</h2>
<p>Body: <code>{"error": "&lt;message&gt;", "code": "&lt;code&gt;", "docs": "&lt;this page&gt;"}</code>. A valid query whose answer is
"nothing is there" is a 200 with an explicit flag, not an error.</p>
<table><thead><tr><th>status</th><th>code</th><th>when</th></tr></thead><tbody>
${errors}
</tbody></table>
<h2 id="limits">Limits and keys</h2>
<p>Free tier, per client IP: local lookups (ip, mac, asn) 1,200 per minute and network lookups (dns, whois, ssl, ping) 60 per minute by
default. <code>Authorization: Bearer &lt;key&gt;</code> selects a plan: developer 10,000 requests/day, pro 100,000/day, business unlimited
(reset at 00:00 UTC). Keys are created by the operator: <code>netintel keys create --plan pro --name NAME</code>. Every /v1 response carries
<code>RateLimit-Limit</code>, <code>RateLimit-Remaining</code> and <code>RateLimit-Reset</code>; a 429 adds <code>Retry-After</code>.</p>
<h2 id="grade">SSL grade rubric</h2>
${rubricHtml()}
<h2 id="data">Data sources and attribution</h2>
<ul>
<li>IP geolocation: <a href="https://db-ip.com">IP Geolocation by DB-IP</a>, licensed under CC BY 4.0 (via the ip-location-db project), or the mmdb the operator configured.</li>
<li>ASN ranges and names: RouteViews, the five RIRs and DB-IP via ip-location-db (CC BY 4.0); RIR delegated statistics; AS names lists.</li>
<li>MAC vendors: the IEEE Registration Authority registries (MA-L, MA-M, MA-S, IAB, CID), via oui-data.</li>
<li>RDAP bootstrap: IANA; CT log list: the v3 log_list.json format.</li>
</ul>
<h2 id="config">Configuration</h2>
<table><thead><tr><th>variable</th><th>meaning</th></tr></thead><tbody>
${config}
</tbody></table>
<script>${CONSOLE_JS}</script>
</body></html>
`;
}
