// Trust store for every outgoing TLS connection: the system CAs plus NETINTEL_EXTRA_CA.
import fs from 'node:fs';
import tls from 'node:tls';

const cache = new Map<string, readonly string[]>();

/** CA list for tls.connect / undici: Node's bundled roots, plus the extra PEM file when configured. */
export function trustedCas(extraCaFile: string | null): readonly string[] {
  const key = extraCaFile ?? '';
  let cas = cache.get(key);
  if (cas === undefined) {
    cas = extraCaFile === null ? [...tls.rootCertificates] : [...tls.rootCertificates, fs.readFileSync(extraCaFile, 'utf8')];
    cache.set(key, cas);
  }
  return cas;
}
