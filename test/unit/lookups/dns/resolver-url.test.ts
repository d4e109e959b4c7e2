import { describe, expect, it } from 'vitest';
import { parseResolverUrl, redact } from '../../../../src/lookups/dns/resolver-url.js';

describe('parseResolverUrl', () => {
  it('DoH over https and http', () => {
    expect(parseResolverUrl('https://resolver.internal/dns-query')).toEqual({ kind: 'doh', url: 'https://resolver.internal/dns-query', authorization: null, display: 'https://resolver.internal/dns-query' });
    expect(parseResolverUrl('http://127.0.0.1:8053/dns-query').kind).toBe('doh');
  });

  it('moves credentials into a Basic header and never shows them', () => {
    const ep = parseResolverUrl('https://user:s%40cret@resolver.internal/dns-query?token=abc');
    expect(ep).toMatchObject({ kind: 'doh', url: 'https://resolver.internal/dns-query?token=abc', display: 'https://resolver.internal/dns-query' });
    expect(ep.kind === 'doh' && ep.authorization).toBe(`Basic ${Buffer.from('user:s@cret').toString('base64')}`);
  });

  it('classic udp/tcp with default port 53 and bracketed IPv6', () => {
    expect(parseResolverUrl('udp://10.0.0.53')).toEqual({ kind: 'udp', host: '10.0.0.53', port: 53, display: 'udp://10.0.0.53:53' });
    expect(parseResolverUrl('tcp://[::1]:5353')).toEqual({ kind: 'tcp', host: '::1', port: 5353, display: 'tcp://[::1]:5353' });
  });

  it('refuses other schemes and non-URLs without echoing credentials', () => {
    expect(() => parseResolverUrl('ftp://a:b@x/')).toThrow(/unsupported scheme/);
    expect(() => parseResolverUrl('ftp://a:b@x/')).not.toThrow(/a:b/);
    expect(() => parseResolverUrl('not a url')).toThrow(/not a URL/);
  });

  it('redact strips userinfo', () => {
    expect(redact('https://u:p@h/x')).toBe('https://h/x');
    expect(redact('udp://h:53')).toBe('udp://h:53');
  });
});
