// Which name the registries are asked about: the registrable domain of the input. Pure.
import { parse } from 'tldts';
import { LookupError, quote } from '../../http/errors.js';
import { parseDomainName } from '../domain-name.js';

export interface WhoisTarget {
  /** Registrable domain, lower-case ASCII (punycode): `www.example.co.uk` → `example.co.uk`. */
  readonly ascii: string;
  readonly unicode: string;
  /** The last label, which the WHOIS root is asked about. */
  readonly tld: string;
}

/**
 * Validates the path parameter (shared host-name rules, IDN → punycode) and reduces it to the
 * registrable domain by the Public Suffix List (ICANN section; private suffixes such as
 * github.io are not registries). Throws LookupError invalid_domain.
 */
export function whoisTarget(param: string): WhoisTarget {
  const name = parseDomainName(param);
  const info = parse(name.ascii, { allowPrivateDomains: false });
  if (info.isIp === true) {
    throw new LookupError('invalid_domain', `Invalid domain name: ${quote(param)} is an IP address; expected a registered domain name such as example.com (use /v1/asn for addresses)`);
  }
  if (info.domain === null || info.domain === '') {
    throw new LookupError(
      'invalid_domain',
      `Invalid domain name: ${quote(param)} is a public suffix, not a registrable domain; expected a name such as example.com or example.co.uk`,
    );
  }
  const registrable = parseDomainName(info.domain);
  return { ascii: registrable.ascii, unicode: registrable.unicode, tld: registrable.labels[registrable.labels.length - 1]! };
}
