import os from 'node:os';

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
