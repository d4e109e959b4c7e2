// Host-name validation shared by the dns, whois, ssl and ping lookups. Pure: no I/O.
//
// Rules (API.md "GET /v1/dns"): 1–253 octets in ASCII form (254 with the trailing dot), labels
// 1–63 octets of letters, digits, hyphen and underscore, an optional trailing dot, Unicode names
// converted to punycode by UTS 46 (node's WHATWG `domainToASCII`, non-transitional).
//
// `domainToASCII` is a URL host parser, not a pure UTS 46 mapper, and it silently rewrites some
// inputs: it percent-decodes (`a%2e.com` → `a..com`), parses numeric hosts as IPv4
// (`1.2.3` → `1.2.0.3`, `0x7f.1` → `127.0.0.1`), drops default-ignorable code points
// (`a\u00ADb` → `ab`) and maps some code points to several labels (`⒈` → `1.`). Each of those is
// rejected here rather than answered for a name the client did not ask about:
//   - ASCII input never goes through `domainToASCII` at all (only its xn-- labels are checked);
//   - only letters, digits, `-`, `_` and `.` may appear among the ASCII characters of any input;
//   - a sentinel label is appended so the last label is never numeric (no IPv4 parsing);
//   - the label count must survive the mapping, and default-ignorable code points are refused
//     (except ZWNJ/ZWJ, which IDNA keeps and checks by context rather than dropping).
import { domainToASCII, domainToUnicode } from 'node:url';
import { LookupError, quote } from '../http/errors.js';

export interface DomainName {
  /** Lower-case ASCII (punycode) form without the trailing dot, e.g. `xn--bcher-kva.de`. */
  readonly ascii: string;
  /** Unicode form of the same name without the trailing dot, e.g. `bücher.de`. */
  readonly unicode: string;
  /** The ASCII labels, in order. */
  readonly labels: readonly string[];
  /** Whether the input ended with a dot (an absolute name). The name is the same either way. */
  readonly absolute: boolean;
}

export const MAX_NAME_OCTETS = 253;
export const MAX_LABEL_OCTETS = 63;

// Anything longer cannot become a valid name; refusing early bounds the work done on hostile input.
const MAX_INPUT_CHARS = 1024;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;
const ASCII_ALLOWED = /^[A-Za-z0-9._-]*$/;
// The four full stops UTS 46 treats as label separators.
const DOTS = /[.\u3002\uFF0E\uFF61]/u;
const SENTINEL = 'x';
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}]/u;
const JOINERS = /[\u200C\u200D]/gu;

const ACCEPTED =
  'a host name of 1–253 characters whose dot-separated labels are 1–63 letters, digits, hyphens or underscores (Unicode names are accepted and converted to punycode)';

function invalid(input: string, why: string): LookupError {
  return new LookupError('invalid_domain', `Invalid domain name: ${quote(input)} ${why}; expected ${ACCEPTED}`);
}

/**
 * Validates a host name and returns its ASCII and Unicode forms.
 * @throws LookupError `invalid_domain` with a message naming the problem.
 */
export function parseDomainName(input: string): DomainName {
  if (typeof input !== 'string' || input.length === 0) throw invalid(String(input ?? ''), 'is empty');
  if (input.length > MAX_INPUT_CHARS) throw invalid(input, 'is too long');
  if (input.trim() !== input) throw invalid(input, 'has surrounding whitespace');

  let ascii: string;
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7F]*$/.test(input)) {
    if (!ASCII_ALLOWED.test(input)) throw invalid(input, 'contains a character other than letters, digits, "-", "_" and "."');
    ascii = input.toLowerCase();
  } else {
    ascii = mapUnicode(input);
  }

  const absolute = ascii.endsWith('.');
  const bare = absolute ? ascii.slice(0, -1) : ascii;
  if (bare.length === 0) throw invalid(input, 'has no labels');
  if (bare.length > MAX_NAME_OCTETS) throw invalid(input, `is longer than ${MAX_NAME_OCTETS} octets in ASCII form`);
  const labels = bare.split('.');
  for (const label of labels) {
    if (label.length === 0) throw invalid(input, 'has an empty label');
    if (label.length > MAX_LABEL_OCTETS) throw invalid(input, `has a label longer than ${MAX_LABEL_OCTETS} octets`);
    if (/[^a-z0-9_-]/.test(label)) throw invalid(input, 'contains a character other than letters, digits, "-", "_" and "."');
    if (!LABEL.test(label)) throw invalid(input, 'has a label that starts or ends with a hyphen');
    if (label.startsWith('xn--') && !isValidAceLabel(label)) throw invalid(input, `has an invalid punycode label ${quote(label)}`);
  }

  return { ascii: bare, unicode: toUnicode(bare, labels.length), labels, absolute };
}

function mapUnicode(input: string): string {
  for (const ch of input) {
    if (ch.charCodeAt(0) < 0x80 && !ASCII_ALLOWED.test(ch)) {
      throw invalid(input, 'contains a character other than letters, digits, "-", "_" and "."');
    }
  }
  if (IGNORABLE.test(input.replace(JOINERS, ''))) throw invalid(input, 'contains an invisible (default-ignorable) character');
  const absolute = DOTS.test(input.slice(-1));
  const body = absolute ? input.slice(0, -1) : input;
  const mapped = domainToASCII(`${body}.${SENTINEL}`);
  if (mapped === '' || !mapped.endsWith(`.${SENTINEL}`)) throw invalid(input, 'is not a valid internationalised domain name (UTS 46)');
  const ascii = mapped.slice(0, -SENTINEL.length - 1);
  if (ascii.split('.').length !== body.split(DOTS).length) throw invalid(input, 'maps to a different number of labels under UTS 46');
  return absolute ? `${ascii}.` : ascii;
}

// domainToASCII refuses an xn-- label whose punycode does not decode to a valid IDN label.
function isValidAceLabel(label: string): boolean {
  return domainToASCII(`${label}.${SENTINEL}`) === `${label}.${SENTINEL}`;
}

function toUnicode(ascii: string, labelCount: number): string {
  if (!ascii.includes('xn--')) return ascii;
  const mapped = domainToUnicode(`${ascii}.${SENTINEL}`);
  const unicode = mapped.endsWith(`.${SENTINEL}`) ? mapped.slice(0, -SENTINEL.length - 1) : '';
  // Every xn-- label was already checked, so this only guards against a parser surprise.
  return unicode !== '' && unicode.split('.').length === labelCount ? unicode : ascii;
}
