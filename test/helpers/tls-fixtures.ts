// Test certificates, generated in-process with @peculiar/x509 over WebCrypto (EC P-256 wherever the
// case allows: ~1 ms per key), written as PEM files to a temp dir. Generate once per test file.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import { tempDir } from './daemon.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);
const subtle = webcrypto.subtle;

export const SCT_LIST_OID = '1.3.6.1.4.1.11129.2.4.2';
const DAY = 86_400_000;

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SHA256_ECDSA = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface Issued {
  /** The certificate alone. */
  readonly certPem: string;
  readonly keyPem: string;
  readonly cert: x509.X509Certificate;
  readonly keys: CryptoKeyPair;
  /** SHA-256 fingerprint, upper-case colon hex (as node and the API print it). */
  readonly fingerprint: string;
}

export interface TestLog {
  /** Base64 log id, as in log_list.json. */
  readonly logId: string;
  readonly description: string;
  readonly operator: string;
}

export interface TlsFixtures {
  readonly dir: string;
  readonly root: Issued;
  readonly intermediate: Issued;
  /** Path of the root CA PEM (what NETINTEL_EXTRA_CA points at). */
  readonly caFile: string;
  /** A CT log list (v3 log_list.json format) naming `sctLog`. */
  readonly logListFile: string;
  readonly sctLog: TestLog;
  /** The SCT timestamp embedded in `leaves.sct`. */
  readonly sctTimestamp: Date;
  readonly leaves: {
    readonly valid: Issued;
    readonly expired: Issued;
    readonly notYetValid: Issued;
    readonly wrongHost: Issued;
    readonly wildcard: Issued;
    readonly rsa1024: Issued;
    readonly sha1: Issued;
    readonly sct: Issued;
    readonly selfSigned: Issued;
    readonly unknownIssuer: Issued;
  };
  /** Server `cert` option: the leaf followed by the intermediate. */
  chain(leaf: Issued): string;
}

async function pemKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

let serial = 0x1000;
function nextSerial(): string {
  serial += 1;
  return serial.toString(16).padStart(8, '0');
}

function ecKeys(): Promise<CryptoKeyPair> {
  return subtle.generateKey(EC, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function finish(cert: x509.X509Certificate, keys: CryptoKeyPair): Promise<Issued> {
  const fingerprint = Buffer.from(await cert.getThumbprint('SHA-256')).toString('hex').toUpperCase().match(/../g)!.join(':');
  return { certPem: cert.toString('pem') + '\n', keyPem: await pemKey(keys.privateKey), cert, keys, fingerprint };
}

interface LeafOptions {
  cn: string;
  san: { type: 'dns' | 'ip'; value: string }[];
  notBefore?: Date;
  notAfter?: Date;
  keys?: CryptoKeyPair;
  signingAlgorithm?: Algorithm | EcdsaParams;
  extra?: x509.Extension[];
}

async function issueLeaf(issuer: Issued, o: LeafOptions): Promise<Issued> {
  const keys = o.keys ?? (await ecKeys());
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerial(),
    subject: `O=Netintel Test, CN=${o.cn}`,
    issuer: issuer.cert.subject,
    notBefore: o.notBefore ?? new Date(now - DAY),
    notAfter: o.notAfter ?? new Date(now + 90 * DAY),
    signingAlgorithm: o.signingAlgorithm ?? SHA256_ECDSA,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(o.san),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...(o.extra ?? []),
    ],
  });
  return finish(cert, keys);
}

async function makeCa(cn: string, parent: Issued | null): Promise<Issued> {
  const keys = await ecKeys();
  const now = Date.now();
  const extensions = [
    new x509.BasicConstraintsExtension(true, parent === null ? undefined : 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  const common = { serialNumber: nextSerial(), notBefore: new Date(now - 2 * DAY), notAfter: new Date(now + 3650 * DAY), signingAlgorithm: SHA256_ECDSA, extensions };
  const cert =
    parent === null
      ? await x509.X509CertificateGenerator.createSelfSigned({ ...common, name: `C=ZZ, O=Netintel Test, CN=${cn}`, keys })
      : await x509.X509CertificateGenerator.create({
          ...common,
          subject: `C=ZZ, O=Netintel Test, CN=${cn}`,
          issuer: parent.cert.subject,
          publicKey: keys.publicKey,
          signingKey: parent.keys.privateKey,
          extensions: [...extensions, await x509.AuthorityKeyIdentifierExtension.create(parent.keys.publicKey)],
        });
  return finish(cert, keys);
}

/**
 * RFC 6962 §3.3 SignedCertificateTimestampList, TLS-encoded, wrapped in the OCTET STRING that is the
 * extension's value. The signature is filler: nothing here verifies SCT signatures.
 */
export function sctListExtension(logIds: readonly Buffer[], timestamp: Date): x509.Extension {
  const scts = logIds.map((logId) => {
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64BE(BigInt(timestamp.getTime()));
    const sig = Buffer.alloc(70, 0x30);
    const body = Buffer.concat([Buffer.from([0]), logId, ts, Buffer.from([0, 0]), Buffer.from([4, 3]), u16(sig.length), sig]);
    return Buffer.concat([u16(body.length), body]);
  });
  const list = Buffer.concat(scts);
  const tls = Buffer.concat([u16(list.length), list]);
  const der = new asn1js.OctetString({ valueHex: tls }).toBER();
  return new x509.Extension(SCT_LIST_OID, false, der);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

const LOCAL_SAN: LeafOptions['san'] = [
  { type: 'dns', value: 'localhost' },
  { type: 'ip', value: '127.0.0.1' },
  { type: 'ip', value: '::1' },
];

export async function createTlsFixtures(): Promise<TlsFixtures> {
  const dir = tempDir('netintel-tls-');
  const root = await makeCa('Netintel Test Root', null);
  const intermediate = await makeCa('Netintel Test Intermediate', root);
  const otherRoot = await makeCa('Untrusted Test Root', null);
  const now = Date.now();

  const sctLogId = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) sctLogId[i] = (i * 7 + 3) & 0xff;
  const sctLog: TestLog = { logId: sctLogId.toString('base64'), description: 'Netintel Test Log 2026h2', operator: 'Netintel Test Operator' };
  const unknownLogId = Buffer.alloc(32, 0xee);
  const sctTimestamp = new Date(Math.floor((now - DAY) / 1000) * 1000);

  const rsaKeys = (await subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair;

  const selfKeys = await ecKeys();
  const selfCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerial(),
    name: 'O=Self Signed Test, CN=localhost',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 90 * DAY),
    signingAlgorithm: SHA256_ECDSA,
    keys: selfKeys,
    extensions: [new x509.BasicConstraintsExtension(false, undefined, true), new x509.SubjectAlternativeNameExtension(LOCAL_SAN)],
  });

  const leaves = {
    valid: await issueLeaf(intermediate, { cn: 'localhost', san: LOCAL_SAN }),
    expired: await issueLeaf(intermediate, { cn: 'localhost', san: LOCAL_SAN, notBefore: new Date(now - 100 * DAY), notAfter: new Date(now - 10 * DAY) }),
    notYetValid: await issueLeaf(intermediate, { cn: 'localhost', san: LOCAL_SAN, notBefore: new Date(now + 10 * DAY), notAfter: new Date(now + 100 * DAY) }),
    wrongHost: await issueLeaf(intermediate, { cn: 'wrong.example', san: [{ type: 'dns', value: 'wrong.example' }] }),
    wildcard: await issueLeaf(intermediate, { cn: '*.wild.test', san: [{ type: 'dns', value: '*.wild.test' }] }),
    rsa1024: await issueLeaf(intermediate, { cn: 'localhost', san: LOCAL_SAN, keys: rsaKeys }),
    sha1: await issueLeaf(intermediate, { cn: 'localhost', san: LOCAL_SAN, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-1' } as EcdsaParams }),
    sct: await issueLeaf(intermediate, { cn: 'localhost', san: LOCAL_SAN, extra: [sctListExtension([sctLogId, unknownLogId], sctTimestamp)] }),
    selfSigned: await finish(selfCert, selfKeys),
    unknownIssuer: await issueLeaf(otherRoot, { cn: 'localhost', san: LOCAL_SAN }),
  };

  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, root.certPem);
  const logListFile = path.join(dir, 'log_list.json');
  fs.writeFileSync(logListFile, JSON.stringify(testLogList([sctLog])));

  return {
    dir, root, intermediate, caFile, logListFile, sctLog, sctTimestamp, leaves,
    chain: (leaf) => leaf.certPem + intermediate.certPem,
  };
}

/** A minimal v3 log_list.json naming the given logs (plus one retired log, as real lists have). */
export function testLogList(logs: readonly TestLog[], version = '1.0', timestamp = '2026-11-01T00:00:00Z'): unknown {
  const byOperator = new Map<string, TestLog[]>();
  for (const l of logs) byOperator.set(l.operator, [...(byOperator.get(l.operator) ?? []), l]);
  return {
    version,
    log_list_timestamp: timestamp,
    operators: [...byOperator].map(([name, ls]) => ({
      name,
      email: ['ct@example.test'],
      logs: ls.map((l) => ({
        description: l.description,
        log_id: l.logId,
        key: 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE',
        url: 'https://ct.example.test/',
        mmd: 86400,
        state: { usable: { timestamp: '2025-01-01T00:00:00Z' } },
        temporal_interval: { start_inclusive: '2026-07-01T00:00:00Z', end_exclusive: '2027-01-01T00:00:00Z' },
      })),
      tiled_logs: [],
    })),
  };
}
