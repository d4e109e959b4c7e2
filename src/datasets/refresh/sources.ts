// Which sources each dataset is refreshed from (config), and small pure helpers about source strings.
import path from 'node:path';
import type { Config } from '../../config.js';

/** The refreshable datasets by their import name, in refresh order (small and critical first). */
export const REFRESH_NAMES = ['rdap-bootstrap', 'ct-logs', 'oui', 'asnames', 'rir', 'prefixes', 'geo'] as const;
export type RefreshName = (typeof REFRESH_NAMES)[number];

export function isRefreshName(name: string): name is RefreshName {
  return (REFRESH_NAMES as readonly string[]).includes(name);
}

/** Accepts the `dataset` row spelling too (rdap_bootstrap, ct_logs). */
export function toRefreshName(name: string): RefreshName | null {
  const n = name.replace(/_/g, '-');
  return isRefreshName(n) ? n : null;
}

export function sourcesFor(config: Config, name: RefreshName): readonly string[] {
  switch (name) {
    case 'rdap-bootstrap':
      return config.rdapBootstrap;
    case 'ct-logs':
      return config.ctLogList;
    default:
      return config.sources[name];
  }
}

/**
 * Datasets whose importer merges several inputs (RIR files, IEEE registries, IPv4 + IPv6). For the
 * bootstrap and the CT list, further sources are fallbacks: the first that fetches wins.
 */
export function mergesSources(name: RefreshName): boolean {
  return name !== 'rdap-bootstrap' && name !== 'ct-logs';
}

export function isHttpSource(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export function localPath(source: string): string {
  return /^file:/i.test(source) ? new URL(source).pathname : source;
}

/** URLs may carry credentials or tokens: logs, errors and the dataset row keep origin and path only. */
export function describeSource(source: string): string {
  if (!isHttpSource(source)) return source;
  try {
    const u = new URL(source);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return source;
  }
}

/** The file name a source's bytes are kept under (no directories, nothing odd). */
export function sourceBaseName(source: string): string {
  let base: string;
  if (isHttpSource(source)) {
    try {
      base = path.posix.basename(new URL(source).pathname);
    } catch {
      base = '';
    }
  } else {
    base = path.basename(localPath(source));
  }
  const clean = base.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '').slice(0, 100);
  return clean === '' ? 'download' : clean;
}

/** The URL (or path) of a sidecar beside a source: the suffix goes on the path, before any query. */
export function sidecarOf(source: string, suffix: '.sha256' | '.md5'): string {
  if (!isHttpSource(source)) return localPath(source) + suffix;
  const u = new URL(source);
  u.pathname += suffix;
  return u.toString();
}
