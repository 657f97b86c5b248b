/**
 * The one circuit breaker (per key: a project, or one shared resource): after `threshold`
 * consecutive failures it opens for `cooldownMs`; then it half-opens and lets one probe through;
 * the probe's success closes it, its failure re-opens it at once for another cool-down. The
 * extraction watcher, the reconciliation judge and the embedding backfill all use it.
 *
 * kiro-learn (Node) re-closed its breaker after any run without failures — including the run the
 * open breaker itself caused — so a sick agent was retried every other run. A cool-down bounds
 * the wasted sessions instead, and a probe recovers without a restart.
 *
 * @module
 */

/** State of one breaker. */
export type BreakerState = "closed" | "open" | "half_open";

/** One breaker, as status shows it. */
export interface BreakerStatus {
  /** Its key (the project id of per-project breakers). */
  project_id: string;
  /** State now. */
  state: BreakerState;
  /** Consecutive failures. */
  failures: number;
  /** When an open breaker half-opens (ISO), if open. */
  open_until: string | null;
}

interface Entry {
  failures: number;
  openUntil: number;
}

/** Circuit breakers, one per key. */
export class CircuitBreaker {
  #threshold: number;
  #cooldownMs: number;
  #now: () => number;
  #entries = new Map<string, Entry>();
  #onChange?: (key: string, state: BreakerState) => void;

  /** Creates the breakers (defaults: 3 failures, 5 minutes). */
  constructor(
    options: {
      threshold?: number;
      cooldownMs?: number;
      now?: () => number;
      onChange?: (key: string, state: BreakerState) => void;
    } = {},
  ) {
    this.#threshold = Math.max(1, options.threshold ?? 3);
    this.#cooldownMs = Math.max(0, options.cooldownMs ?? 300_000);
    this.#now = options.now ?? Date.now;
    this.#onChange = options.onChange;
  }

  /** The key's state now. */
  state(key: string): BreakerState {
    const entry = this.#entries.get(key);
    if (!entry || entry.failures < this.#threshold) return "closed";
    return this.#now() < entry.openUntil ? "open" : "half_open";
  }

  /** True when a call may go ahead (closed, or half-open for a probe). */
  allows(key: string): boolean {
    return this.state(key) !== "open";
  }

  /** A success: closes the breaker. */
  recordSuccess(key: string): void {
    const before = this.state(key);
    this.#entries.delete(key);
    if (before !== "closed") this.#onChange?.(key, "closed");
  }

  /** A failure: opens the breaker at the threshold, or re-opens a half-open one. */
  recordFailure(key: string): void {
    const before = this.state(key);
    const entry = this.#entries.get(key) ?? { failures: 0, openUntil: 0 };
    // Past the threshold every failure (a failed probe too) re-opens at once.
    entry.failures++;
    if (entry.failures >= this.#threshold) entry.openUntil = this.#now() + this.#cooldownMs;
    this.#entries.set(key, entry);
    if (before !== "open" && this.state(key) === "open") {
      this.#onChange?.(key, "open");
    }
  }

  /** Consecutive failures of `key`. */
  failures(key: string): number {
    return this.#entries.get(key)?.failures ?? 0;
  }

  /** When an open breaker half-opens (ms since the epoch), or 0 when it is not open. */
  openUntil(key: string): number {
    return this.state(key) === "open" ? this.#entries.get(key)!.openUntil : 0;
  }

  /** Every key with failures, for status. */
  statuses(): BreakerStatus[] {
    return [...this.#entries].map(([key, entry]) => {
      const state = this.state(key);
      return {
        project_id: key,
        state,
        failures: entry.failures,
        open_until: state === "open" ? new Date(entry.openUntil).toISOString() : null,
      };
    });
  }
}
