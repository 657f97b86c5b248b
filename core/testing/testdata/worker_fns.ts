// Functions for hang_guard_test.ts to call in a worker.

/** Doubles a number. */
export function double(n: number): number {
  return n * 2;
}

/** Spins forever when asked to, blocking its thread like a catastrophic regex would. */
export function spinIf(spin: boolean): string {
  while (spin) {
    // Deliberately endless.
  }
  return "done";
}

/** Throws. */
export function fail(message: string): never {
  throw new Error(message);
}
