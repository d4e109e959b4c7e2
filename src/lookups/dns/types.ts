// DNS domain types shared by the core, the transports and the lookup. No I/O.

/** The record types the API answers (API.md "GET /v1/dns"). */
export const QUERY_TYPES = ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA', 'CAA', 'SRV'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

/** IANA type codes of the query types. */
export const TYPE_CODE: Readonly<Record<QueryType, number>> = {
  A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, TXT: 16, AAAA: 28, SRV: 33, CAA: 257,
};

/** RCODE names (RFC 1035, 2136, 2845, 6891, 7873). */
export const RCODE_NAME: Readonly<Record<number, string>> = {
  0: 'NOERROR', 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED',
  6: 'YXDOMAIN', 7: 'YXRRSET', 8: 'NXRRSET', 9: 'NOTAUTH', 10: 'NOTZONE', 11: 'DSOTYPENI',
  16: 'BADVERS', 17: 'BADKEY', 18: 'BADTIME', 19: 'BADMODE', 20: 'BADNAME', 21: 'BADALG', 22: 'BADTRUNC', 23: 'BADCOOKIE',
};

export function rcodeName(rcode: number): string {
  return RCODE_NAME[rcode] ?? `RCODE${rcode}`;
}

/** One resource record as the API shows it: common fields plus the parsed fields of its type. */
export interface DnsRecord {
  readonly name: string;
  readonly type: string;
  readonly ttl: number;
  readonly data: string;
  readonly [field: string]: unknown;
}

/** A decoded, validated response from one resolver. */
export interface DnsAnswer {
  readonly rcode: number;
  readonly authenticated: boolean;
  readonly truncated: boolean;
  readonly answers: readonly DnsRecord[];
  readonly authority: readonly DnsRecord[];
}
