// A tiny futex-style mutex on one Int32 word of a SharedArrayBuffer, for critical sections of a few
// dozen instructions shared by the HTTP worker threads (rate-limit sets, key usage slots).
// States: 0 free, 1 held, 2 held with waiters (Drepper, "Futexes are tricky", mutex 2).
// The Atomics operations also order the plain typed-array reads and writes made while the lock is held.

/** Upper bound of one wait: a lock holder can only be a thread being torn down, so waking up to re-check is cheap. */
const WAIT_MS = 50;

export function lockWord(words: Int32Array, index: number): void {
  let c = Atomics.compareExchange(words, index, 0, 1);
  if (c === 0) return;
  // A short spin first: the holder leaves within microseconds unless it was descheduled.
  for (let spin = 0; spin < 64; spin++) {
    c = Atomics.compareExchange(words, index, 0, 1);
    if (c === 0) return;
  }
  if (c !== 2) c = Atomics.exchange(words, index, 2);
  while (c !== 0) {
    Atomics.wait(words, index, 2, WAIT_MS);
    c = Atomics.exchange(words, index, 2);
  }
}

export function unlockWord(words: Int32Array, index: number): void {
  if (Atomics.sub(words, index, 1) !== 1) {
    Atomics.store(words, index, 0);
    Atomics.notify(words, index, 1);
  }
}
