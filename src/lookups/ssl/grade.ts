// The SSL grade (API.md "GET /v1/ssl" rubric). Pure: the probe gathers facts, this turns them into a letter.
//
// SSL Labs' published method, computed locally from what one daemon can observe:
//   score = protocol 30% + key exchange 30% + cipher 40%, each sub-score 0–100;
//   letters by score, then caps, then A+ and T on top.
// GRADE_RUBRIC below is the same rubric as data, rendered by the docs page and the README.

export type ProtocolName = 'SSLv3' | 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
export type Letter = 'A' | 'B' | 'C' | 'D' | 'E' | 'F';
export type Grade = 'A+' | Letter | 'T';

export interface GradeKey {
  /** "RSA", "EC", "Ed25519", "Ed448", "DSA" (as reported in `key.type`). */
  readonly type: string;
  readonly bits: number | null;
  readonly curve: string | null;
}

export interface GradeInput {
  /** Which protocol versions the server accepted. Missing entries count as not offered. */
  readonly protocols: Readonly<Partial<Record<ProtocolName, boolean>>>;
  readonly key: GradeKey;
  /** Key bits of every cipher the server was seen to choose (one per accepted protocol). */
  readonly cipherBits: readonly number[];
  /** Of the server's preferred suite (the one negotiated at the highest version). */
  readonly forwardSecrecy: boolean;
  readonly aead: boolean;
  /** OpenSSL long name of the leaf's signature algorithm, e.g. "sha256WithRSAEncryption". */
  readonly signatureAlgorithm: string | null;
  /** HSTS max-age in seconds; null when the header is absent or unparsable. */
  readonly hstsMaxAge: number | null;
  /** Chain valid and hostname matched (any trust failure gives T). */
  readonly trusted: boolean;
}

export interface GradeReason {
  readonly rule: string;
  readonly effect: string;
}

export interface GradeResult {
  readonly grade: Grade;
  readonly grade_ignoring_trust: Exclude<Grade, 'T'>;
  readonly grade_reasons: readonly GradeReason[];
  readonly score: { readonly protocol: number; readonly key_exchange: number; readonly cipher: number; readonly total: number };
}

/** 180 days: the HSTS max-age A+ needs. */
export const HSTS_A_PLUS_MIN_AGE = 180 * 86400;

const PROTOCOL_SCORE: Readonly<Record<ProtocolName, number>> = {
  'TLSv1.3': 100,
  'TLSv1.2': 100,
  'TLSv1.1': 95,
  'TLSv1': 90,
  'SSLv3': 80,
};

const LETTER_FLOORS: readonly (readonly [Letter, number])[] = [
  ['A', 80],
  ['B', 65],
  ['C', 50],
  ['D', 35],
  ['E', 20],
];

interface Cap {
  readonly rule: string;
  readonly cap: Letter;
  readonly applies: (i: GradeInput, strength: number) => boolean;
  readonly text: string;
}

const offered = (i: GradeInput, p: ProtocolName): boolean => i.protocols[p] === true;

// Order matters only for the order of grade_reasons: most severe first.
const CAPS: readonly Cap[] = [
  { rule: 'key-under-1024', cap: 'F', text: 'key strength below 1024 bits (RSA-equivalent)', applies: (_i, s) => s < 1024 },
  {
    rule: 'weak-signature', cap: 'F', text: 'leaf certificate signed with MD5 or SHA-1',
    applies: (i) => i.signatureAlgorithm !== null && /md5|md2|sha1(?!\d)|sha-1(?!\d)/i.test(i.signatureAlgorithm),
  },
  { rule: 'no-tls12', cap: 'C', text: 'neither TLS 1.2 nor TLS 1.3 offered', applies: (i) => !offered(i, 'TLSv1.2') && !offered(i, 'TLSv1.3') },
  { rule: 'legacy-tls', cap: 'B', text: 'TLS 1.0 or TLS 1.1 offered', applies: (i) => offered(i, 'TLSv1') || offered(i, 'TLSv1.1') || offered(i, 'SSLv3') },
  { rule: 'no-forward-secrecy', cap: 'B', text: 'preferred suite has no forward secrecy (ECDHE/DHE)', applies: (i) => !i.forwardSecrecy },
  { rule: 'no-aead', cap: 'B', text: 'preferred suite is not AEAD (GCM, CHACHA20-POLY1305, CCM)', applies: (i) => !i.aead },
  { rule: 'rsa-key-under-2048', cap: 'B', text: 'RSA key shorter than 2048 bits', applies: (i) => i.key.type.toUpperCase() === 'RSA' && (i.key.bits ?? 0) < 2048 },
];

/**
 * Equivalent RSA strength of a key (NIST SP 800-57 Part 1, table 2): RSA/DSA by modulus,
 * EC by curve size (P-256 ≈ 3072, P-384 ≈ 7680, P-521 ≈ 15360), Ed25519 ≈ 3072, Ed448 ≈ 7680.
 */
export function keyStrength(key: GradeKey): number {
  const type = key.type.toUpperCase();
  if (type === 'ED25519' || type === 'X25519') return 3072;
  if (type === 'ED448' || type === 'X448') return 7680;
  const bits = key.bits ?? 0;
  if (type === 'EC') {
    if (bits <= 0) return 0;
    if (bits < 160) return 512;
    if (bits < 224) return 1024;
    if (bits < 256) return 2048;
    if (bits < 384) return 3072;
    if (bits < 512) return 7680;
    return 15360;
  }
  return Math.max(0, bits);
}

export function protocolScore(protocols: GradeInput['protocols']): number {
  const scores = (Object.keys(PROTOCOL_SCORE) as ProtocolName[]).filter((p) => protocols[p] === true).map((p) => PROTOCOL_SCORE[p]);
  if (scores.length === 0) return 0;
  return (Math.max(...scores) + Math.min(...scores)) / 2;
}

const WEIGHTS = { protocol: 0.3, key_exchange: 0.3, cipher: 0.4 } as const;

/** Score bands, one table each: the scoring functions and the published rubric both read them. */
const KEY_EXCHANGE_BANDS: readonly (readonly [below: number, score: number])[] = [[512, 20], [1024, 40], [2048, 80], [4096, 90], [Infinity, 100]];
const CIPHER_BANDS: readonly (readonly [below: number, score: number])[] = [[128, 20], [256, 80], [Infinity, 100]];

function band(bands: readonly (readonly [number, number])[], value: number): number {
  if (value <= 0) return 0;
  for (const [below, score] of bands) if (value < below) return score;
  return 0;
}

function bandsForRubric(bands: readonly (readonly [number, number])[]): ({ below: number; score: number } | { at_least: number; score: number })[] {
  return bands.map(([below, score], i) => (below === Infinity ? { at_least: bands[i - 1]![0], score } : { below, score }));
}

export function keyExchangeScore(strength: number): number {
  return band(KEY_EXCHANGE_BANDS, strength);
}

function cipherBitsScore(bits: number): number {
  return band(CIPHER_BANDS, bits);
}

export function cipherScore(bits: readonly number[]): number {
  if (bits.length === 0) return 0;
  return (cipherBitsScore(Math.max(...bits)) + cipherBitsScore(Math.min(...bits))) / 2;
}

export function letterFor(score: number): Letter {
  for (const [letter, floor] of LETTER_FLOORS) if (score >= floor) return letter;
  return 'F';
}

const RANK: Readonly<Record<Letter, number>> = { A: 0, B: 1, C: 2, D: 3, E: 4, F: 5 };
const worse = (a: Letter, b: Letter): Letter => (RANK[a] >= RANK[b] ? a : b);

export function computeGrade(input: GradeInput): GradeResult {
  const strength = keyStrength(input.key);
  const protocol = protocolScore(input.protocols);
  const keyExchange = keyExchangeScore(strength);
  const cipher = cipherScore(input.cipherBits);
  // Rounded to 0.1 so floating-point noise never moves a boundary (0.3*90 + ... == 80.000000001).
  const total = Math.round((protocol * WEIGHTS.protocol + keyExchange * WEIGHTS.key_exchange + cipher * WEIGHTS.cipher) * 10) / 10;

  let letter = letterFor(total);
  const reasons: GradeReason[] = [];
  for (const c of CAPS) {
    if (!c.applies(input, strength)) continue;
    letter = worse(letter, c.cap);
    reasons.push({ rule: c.rule, effect: `capped at ${c.cap}: ${c.text}` });
  }

  let ignoringTrust: Exclude<Grade, 'T'> = letter;
  if (letter === 'A' && reasons.length === 0) {
    if (input.hstsMaxAge !== null && input.hstsMaxAge >= HSTS_A_PLUS_MIN_AGE) ignoringTrust = 'A+';
    else reasons.push({ rule: 'no-hsts', effect: `A+ not reached: HSTS max-age ${input.hstsMaxAge === null ? 'absent' : `${input.hstsMaxAge} s`} is below 180 days (${HSTS_A_PLUS_MIN_AGE} s)` });
  }
  if (!input.trusted) reasons.push({ rule: 'untrusted', effect: `grade T: the certificate is not trusted (grade ignoring trust: ${ignoringTrust})` });

  return {
    grade: input.trusted ? ignoringTrust : 'T',
    grade_ignoring_trust: ignoringTrust,
    grade_reasons: reasons,
    score: { protocol, key_exchange: keyExchange, cipher, total },
  };
}

/** The rubric as data, for the docs page (rendered as tables) and the README. */
export const GRADE_RUBRIC = {
  summary: "SSL Labs' method, computed locally: score = protocol 30% + key exchange 30% + cipher 40%.",
  weights: WEIGHTS,
  protocol: {
    text: 'Average of the scores of the best and the worst protocol offered.',
    scores: (Object.keys(PROTOCOL_SCORE) as ProtocolName[]).map((protocol) => ({ protocol, score: PROTOCOL_SCORE[protocol] })),
  },
  key_exchange: {
    text: 'By the strength of the certificate key in RSA-equivalent bits (EC: P-256 ≈ 3072, P-384 ≈ 7680, P-521 ≈ 15360; Ed25519 ≈ 3072).',
    scores: bandsForRubric(KEY_EXCHANGE_BANDS),
  },
  cipher: {
    text: 'Average of the scores of the strongest and the weakest cipher the server chose (its preferred suite at each protocol version offered).',
    scores: bandsForRubric(CIPHER_BANDS),
  },
  letters: LETTER_FLOORS.map(([letter, min]) => ({ letter, min_score: min })).concat([{ letter: 'F', min_score: 0 }]),
  caps: CAPS.map((c) => ({ rule: c.rule, cap: c.cap, when: c.text })),
  a_plus: 'A+ needs grade A with no caps and an HSTS max-age of at least 180 days (15552000 s); otherwise the reason "no-hsts" is listed.',
  trust: 'Any trust failure (expired, not yet valid, self-signed, untrusted or incomplete chain, hostname mismatch) gives grade "T"; grade_ignoring_trust keeps the letter underneath.',
} as const;
