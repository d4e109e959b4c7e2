// Checksum sidecars (`<file>.sha256`, `<file>.md5`) as mirrors and upstreams publish them. Pure: no I/O.
// Accepted forms, one entry per line:
//   <hex>                      (just the digest)
//   <hex>  <name> / <hex> *<name>   (GNU coreutils, text / binary mode)
//   SHA256 (<name>) = <hex>    (BSD / openssl dgst)

export type ChecksumAlgorithm = 'sha256' | 'md5';

export const DIGEST_HEX_LENGTH: Readonly<Record<ChecksumAlgorithm, number>> = { sha256: 64, md5: 32 };

export interface ChecksumEntry {
  /** Lower-case hex digest. */
  readonly digest: string;
  /** The file name the line names, when it names one. */
  readonly name: string | null;
}

export type SidecarResult = { readonly ok: true; readonly digest: string } | { readonly ok: false; readonly reason: string };

const BSD_LINE = /^(SHA256|SHA2-256|MD5)\s*\((.*)\)\s*=\s*([0-9a-fA-F]+)$/;
const GNU_LINE = /^\\?([0-9a-fA-F]+)(?:[ \t]+\*?(.*))?$/;

/** The entries of a sidecar; lines that are empty or comments are skipped, others must parse. */
export function parseChecksumLines(text: string, algorithm: ChecksumAlgorithm): ChecksumEntry[] | string {
  const want = DIGEST_HEX_LENGTH[algorithm];
  const entries: ChecksumEntry[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const bsd = BSD_LINE.exec(line);
    const gnu = bsd === null ? GNU_LINE.exec(line) : null;
    const hex = bsd?.[3] ?? gnu?.[1];
    if (hex === undefined) return `line ${i + 1} is not "<${algorithm}>  <file>" nor "${algorithm.toUpperCase()} (<file>) = <${algorithm}>"`;
    if (hex.length !== want) return `line ${i + 1}: a ${algorithm} digest has ${want} hex digits, not ${hex.length}`;
    if (bsd !== null && (bsd[1]!.toUpperCase() === 'MD5') !== (algorithm === 'md5')) return `line ${i + 1} is a ${bsd[1]} digest, not ${algorithm}`;
    const name = (bsd?.[2] ?? gnu?.[2] ?? '').trim();
    entries.push({ digest: hex.toLowerCase(), name: name === '' ? null : name });
  }
  return entries;
}

/** Base name of a path or URL path, for matching sidecar entries. */
function baseName(name: string): string {
  const clean = name.replace(/[?#].*$/, '');
  return clean.slice(clean.lastIndexOf('/') + 1);
}

/**
 * The digest the sidecar gives for `fileName`: the entry naming it, or the only entry (a mirror may
 * publish `latest.gz.sha256` naming the dated file). Several entries and none for this file: an error.
 */
export function digestFromSidecar(text: string, algorithm: ChecksumAlgorithm, fileName: string): SidecarResult {
  const parsed = parseChecksumLines(text, algorithm);
  if (typeof parsed === 'string') return { ok: false, reason: `checksum file unreadable: ${parsed}` };
  if (parsed.length === 0) return { ok: false, reason: 'checksum file is empty' };
  const base = baseName(fileName);
  const named = parsed.filter((e) => e.name !== null && baseName(e.name) === base);
  if (named.length > 0) {
    const digests = new Set(named.map((e) => e.digest));
    if (digests.size > 1) return { ok: false, reason: `checksum file gives ${digests.size} different digests for ${base}` };
    return { ok: true, digest: named[0]!.digest };
  }
  if (parsed.length === 1) return { ok: true, digest: parsed[0]!.digest };
  return { ok: false, reason: `checksum file has ${parsed.length} entries and none for ${base}` };
}
