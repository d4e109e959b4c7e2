// NETINTEL_DOH_URL entries → resolver endpoints. Pure: no I/O.

export type ResolverEndpoint =
  | {
      readonly kind: 'doh';
      /** The URL requests go to, without userinfo (undici refuses credentials in URLs). */
      readonly url: string;
      /** `Basic …` built from the URL's userinfo, or null. */
      readonly authorization: string | null;
      /** Safe to show to clients and in logs: no userinfo, no query string. */
      readonly display: string;
    }
  | {
      readonly kind: 'udp' | 'tcp';
      readonly host: string;
      readonly port: number;
      readonly display: string;
    };

/**
 * Parses one resolver URL: `https://…` or `http://…` (DNS over HTTPS, RFC 8484), `udp://host[:port]`
 * or `tcp://host[:port]` (classic DNS, port 53 by default). IPv6 hosts go in brackets.
 * @throws Error naming the entry (config is validated at start, so this is a start-up failure).
 */
export function parseResolverUrl(raw: string): ResolverEndpoint {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`resolver ${JSON.stringify(redact(raw))} is not a URL`);
  }
  const scheme = u.protocol.slice(0, -1);
  if (scheme === 'https' || scheme === 'http') {
    const authorization = u.username !== '' || u.password !== ''
      ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
      : null;
    u.username = '';
    u.password = '';
    const display = `${u.origin}${u.pathname}`;
    return { kind: 'doh', url: u.href, authorization, display };
  }
  if (scheme === 'udp' || scheme === 'tcp') {
    if (u.hostname === '') throw new Error(`resolver ${JSON.stringify(redact(raw))} has no host`);
    const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    const port = u.port === '' ? 53 : Number(u.port);
    const display = `${scheme}://${u.hostname}:${port}`;
    return { kind: scheme, host, port, display };
  }
  throw new Error(`resolver ${JSON.stringify(redact(raw))} has unsupported scheme ${JSON.stringify(scheme)}; use https, http, udp or tcp`);
}

/** Removes userinfo from anything URL-shaped, for messages about bad entries. */
export function redact(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1');
}
