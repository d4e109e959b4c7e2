import os from 'node:os';
import v8 from 'node:v8';

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Lowers the calling thread's CPU priority to `nice` (never raises it). On Linux nice is per thread
 * (setpriority on id 0 is the calling thread), so the process's other threads keep theirs; threads
 * created afterwards inherit it. False where the platform refuses: the caller logs that, never fatal.
 */
export function lowerThreadPriority(nice: number = os.constants.priority.PRIORITY_BELOW_NORMAL): boolean {
  try {
    // Never raise it: a daemon started under a higher nice keeps that.
    if (os.getPriority(0) < nice) os.setPriority(0, nice);
    return true;
  } catch {
    return false;
  }
}

/** The V8 flags `serve` sets before its workers start (they read the process-wide flags). */
export const SERVING_V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

/**
 * Tunes V8's garbage collector for serving. Allocation-site pretenuring is off: while a lookup's caches
 * fill, many fresh objects survive, and V8 then marks the allocation sites they came from to allocate
 * straight into the old generation. Those sites include the per-request ones (request view, reply,
 * parsed query), so from then on every request's garbage needed a full GC: under /v1/asn load after
 * /v1/ip and /v1/mac had warmed up, scavenges took 3–23 ms instead of 0.7, the worker ran a mark-compact
 * every 0.4–4 s, and the p99 went from ~2 to 10–20 ms. Nothing this daemon keeps is built from
 * per-request allocation sites, so the flag costs nothing measurable. Set at run time because a single
 * executable cannot take V8 flags on its command line, and NODE_OPTIONS refuses this one.
 */
export function tuneGcForServing(): void {
  for (const flag of SERVING_V8_FLAGS) v8.setFlagsFromString(flag);
}
