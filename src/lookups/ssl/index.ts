// GET /v1/ssl/{domain}: glue between the parser, the probe policy, the TLS probe, the stores and the
// result builder. Results are cached briefly and coalesced per target; probes are bounded in number.
import type { AppContext } from '../../context.js';
import { LookupError, quote } from '../../http/errors.js';
import { parseCidr } from '../../platform/cidr.js';
import { createHttpAgent } from '../../platform/fetch.js';
import { ConcurrencyLimiter } from '../../platform/limiter.js';
import { LruCache } from '../../platform/lru-cache.js';
import { HostNotFoundError, probePolicyFrom, resolveTarget } from '../../platform/probe-policy.js';
import { SingleFlight } from '../../platform/single-flight.js';
import { trustedCas } from '../../platform/tls-trust.js';
import type { Lookup } from '../types.js';
import { hostnameMatches, parseHsts } from './analysis.js';
import { describeCertificate, type CertInfo } from './cert.js';
import { CT_DATASET, CtLogIndex, hasCtLogList, loadCtLogListFromSources } from './ct-logs.js';
import { CtSearchClient } from './ct-search.js';
import { SslHistory, type HistoryEntry } from './history.js';
import { ConnectError, TLS_VERSIONS, TlsProbe, type Handshake, type ScanResult, type TlsTarget, type TlsVersion } from './probe.js';
import { buildSslBody } from './result.js';
import { parseSslTarget, targetLabel, type SslTarget } from './target.js';

export { GRADE_RUBRIC } from './grade.js';
export { importCtLogList } from './ct-logs.js';

interface Checked {
  readonly body: Record<string, unknown>;
}

const CACHE_ENTRIES = 1000;
/** Addresses of one name tried in turn when a connection is refused or unreachable. */
const MAX_ADDRESSES = 4;

export function createSslLookup(ctx: AppContext): Lookup {
  const { config, log, metrics } = ctx;
  const policy = probePolicyFrom(config, parseCidr);
  const limiter = new ConcurrencyLimiter(config.probeConcurrency, config.probeConcurrency * 4);
  const cache = new LruCache<string, Checked>({ maxEntries: CACHE_ENTRIES });
  const flights = new SingleFlight<Checked>();
  const history = new SslHistory(ctx.db);
  const ctIndex = new CtLogIndex(ctx.db);
  const ctSearch =
    config.ctSearchUrl === null
      ? null
      : new CtSearchClient({
          baseUrl: config.ctSearchUrl,
          timeoutMs: config.sslTimeoutMs,
          dispatcher: createHttpAgent({ extraCa: config.extraCa, connectTimeoutMs: config.sslTimeoutMs, connections: 8 }),
        });
  // Built on first use: reading NETINTEL_EXTRA_CA must not fail the whole daemon's start-up.
  let probe: TlsProbe | null = null;
  const getProbe = (): TlsProbe => (probe ??= new TlsProbe({ ca: trustedCas(config.extraCa), timeoutMs: config.sslTimeoutMs }));

  // The CT log list is loaded from NETINTEL_CT_LOG_LIST when the store has none, once per process,
  // on the first ssl lookup (not at construction: every process builds every lookup, the CLI included).
  let ctLoad: Promise<void> | null = null;
  const ensureCtLogs = (): Promise<void> => {
    ctLoad ??= hasCtLogList(ctx.db) || config.ctLogList.length === 0
      ? Promise.resolve()
      : loadCtLogListFromSources(ctx.db, config.ctLogList, { extraCa: config.extraCa, timeoutMs: config.refreshTimeoutMs, maxBytes: config.refreshMaxBytes }).then(
          (ok) => {
            if (!ok) log.warn({ dataset: CT_DATASET, sources: config.ctLogList }, 'CT log list could not be loaded; SCT log names will be null');
          },
          (err: unknown) => log.warn({ err, dataset: CT_DATASET }, 'CT log list could not be loaded'),
        );
    return ctLoad;
  };

  async function handshake(target: SslTarget, addresses: readonly string[], signal: AbortSignal): Promise<{ tt: TlsTarget; hs: Handshake }> {
    let last: unknown = null;
    for (const address of addresses.slice(0, MAX_ADDRESSES)) {
      const tt: TlsTarget = { address, port: target.port, servername: target.isIp ? null : target.host };
      try {
        return { tt, hs: await metrics.timeUpstream('tls', () => getProbe().handshake(tt, signal)) };
      } catch (e) {
        // Only "nothing listens there" moves on; a timeout or a failed handshake is the answer.
        if (!(e instanceof ConnectError)) throw e;
        last = e;
      }
    }
    throw last;
  }

  async function check(target: SslTarget, signal: AbortSignal): Promise<Checked> {
    let addresses: readonly string[];
    try {
      addresses = (await withTimeout(resolveTarget(target.host, policy), config.sslTimeoutMs, () => new LookupError('upstream_timeout', `Resolving ${quote(target.host)} took longer than ${config.sslTimeoutMs} ms`))).addresses;
    } catch (e) {
      if (e instanceof HostNotFoundError) throw new LookupError('upstream_error', `Host not found: ${quote(target.host)} does not resolve`, {}, { cause: e });
      throw e;
    }
    const ctReady = ensureCtLogs();
    const { tt, hs } = await handshake(target, addresses, signal);

    let chain: CertInfo[];
    try {
      chain = hs.chain.map((raw) => describeCertificate(raw));
    } catch (e) {
      throw new LookupError('upstream_error', `${quote(target.host)} sent a certificate that could not be parsed`, {}, { cause: e });
    }
    const leaf = chain[0]!;
    const checkedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    history.record(target.host, target.port, { fingerprint: leaf.fingerprintSha256, serial: leaf.serialNumber, issuer: leaf.issuerDn, validFrom: leaf.validFrom, expiresAt: leaf.expiresAt }, checkedAt);

    const hostHeader = target.port === 443 ? hostForHeader(target) : `${hostForHeader(target)}:${target.port}`;
    // The version the full handshake negotiated is known to work; scan the others (at most 3 at once).
    const scanned = Promise.all(
      TLS_VERSIONS.map(async (v): Promise<[TlsVersion, ScanResult]> =>
        v === hs.protocol ? [v, { accepted: true, cipher: hs.cipher }] : [v, await metrics.timeUpstream('tls_scan', () => getProbe().scan(tt, v, signal))],
      ),
    );
    const hstsHeader = metrics.timeUpstream('hsts', () => getProbe().hstsHeader(tt, hostHeader, signal));
    const logged: Promise<HistoryEntry[] | null> =
      ctSearch === null || target.isIp
        ? Promise.resolve(null)
        : metrics.timeUpstream('ct_search', () => ctSearch.search(target.host, signal)).catch((err: unknown) => {
            log.warn({ err: err instanceof Error ? err.message : String(err), domain: target.host }, 'CT search failed; logged certificates omitted');
            return null;
          });
    const ctLoaded = Promise.race([ctReady, new Promise<void>((resolve) => setTimeout(resolve, config.sslTimeoutMs).unref())]);
    const [scans, hsts, loggedEntries] = await Promise.all([scanned, hstsHeader, logged, ctLoaded]);

    const ctMeta = ctIndex.current();
    const body = buildSslBody(
      {
        target,
        address: tt.address,
        protocol: hs.protocol,
        cipher: hs.cipher,
        verifyError: hs.verifyError,
        hostnameMatch: hostnameMatches(target.host, hs.leaf),
        chain,
        scans: Object.fromEntries(scans) as Record<TlsVersion, ScanResult>,
        hsts: parseHsts(hsts),
        scts: leaf.scts.map((s) => {
          const name = ctIndex.lookup(s.log_id);
          return { ...s, log_name: name?.log_name ?? null, operator: name?.operator ?? null };
        }),
        observed: history.list(target.host, target.port),
        logged: loggedEntries,
        checkedAt,
        source: {
          tls: { upstream: `${tt.address.includes(':') ? `[${tt.address}]` : tt.address}:${tt.port}` },
          ct_logs: ctMeta === null ? null : { dataset: ctMeta.version, built_at: ctMeta.built_at },
          ct_search: ctSearch === null || target.isIp ? null : { upstream: ctSearch.upstream, ok: loggedEntries !== null },
        },
      },
      Date.now(),
    );
    return { body };
  }

  return {
    name: 'ssl',
    klass: 'network',
    run: async ({ param }) => {
      const target = parseSslTarget(param);
      const key = targetLabel(target);
      const hit = cache.get(key);
      if (hit !== undefined) {
        metrics.cacheRequests.inc({ cache: 'ssl', result: 'hit' });
        return { body: { ...hit.value.body, cached: true }, maxAge: Math.ceil(hit.remainingMs / 1000) };
      }
      metrics.cacheRequests.inc({ cache: 'ssl', result: 'miss' });
      // Shared by every concurrent request for the target, so no one client's disconnect cancels it;
      // each step is bounded by NETINTEL_SSL_TIMEOUT_MS and the whole by the request deadline.
      const result = await flights.run(key, async () => {
        const checked = await limiter.run(() => check(target, AbortSignal.timeout(config.requestTimeoutMs)));
        cache.set(key, checked, config.sslCacheTtl * 1000);
        return checked;
      });
      return { body: result.body, maxAge: config.sslCacheTtl };
    },
  };
}

function hostForHeader(t: SslTarget): string {
  return t.isIp && t.host.includes(':') ? `[${t.host}]` : t.host;
}

// getaddrinfo cannot be cancelled; the lookup stops waiting for it instead.
function withTimeout<T>(p: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
