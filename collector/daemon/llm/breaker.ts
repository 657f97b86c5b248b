/**
 * The per-project judge breaker: after `threshold` consecutive judge failures (a timeout, or
 * garbage after the retry) the project's chunks skip the judge and commit directly. After
 * `cooldownMs` the breaker half-opens: the next cluster with neighbours asks the judge again; a
 * valid answer closes it, a failure re-opens it for another cool-down.
 *
 * kiro-learn re-closes the breaker after any run without judge failures — including the
 * direct-commit run the open breaker itself caused — so a sick judge was retried every other
 * run. A cool-down bounds the wasted sessions instead, and a probe recovers without a restart.
 *
 * @module
 */

/** Breaker state of one project. */
export type JudgeBreakerState = "closed" | "open" | "half_open";

/** One project's breaker, as status shows it. */
export interface JudgeBreakerStatus {
  /** Project id. */
  project_id: string;
  /** State now. */
  state: JudgeBreakerState;
  /** Consecutive judge failures. */
  failures: number;
  /** When an open breaker half-opens (ISO), if open. */
  open_until: string | null;
}

interface Entry {
  failures: number;
  openUntil: number;
}

/** Per-project judge circuit breakers. */
export class JudgeBreaker {
  #threshold: number;
  #cooldownMs: number;
  #now: () => number;
  #projects = new Map<string, Entry>();
  #onChange?: (projectId: string, state: JudgeBreakerState) => void;

  /** Creates the breakers (defaults: 3 failures, 5 minutes). */
  constructor(
    options: {
      threshold?: number;
      cooldownMs?: number;
      now?: () => number;
      onChange?: (projectId: string, state: JudgeBreakerState) => void;
    } = {},
  ) {
    this.#threshold = Math.max(1, options.threshold ?? 3);
    this.#cooldownMs = Math.max(0, options.cooldownMs ?? 300_000);
    this.#now = options.now ?? Date.now;
    this.#onChange = options.onChange;
  }

  /** The project's state now. */
  state(projectId: string): JudgeBreakerState {
    const entry = this.#projects.get(projectId);
    if (!entry || entry.failures < this.#threshold) return "closed";
    return this.#now() < entry.openUntil ? "open" : "half_open";
  }

  /** True when the judge may be asked (closed, or half-open for a probe). */
  allows(projectId: string): boolean {
    return this.state(projectId) !== "open";
  }

  /** A judge answered validly: closes the breaker. */
  recordSuccess(projectId: string): void {
    const before = this.state(projectId);
    this.#projects.delete(projectId);
    if (before !== "closed") this.#onChange?.(projectId, "closed");
  }

  /** A judge call failed for good (after its retry, or a timeout). */
  recordFailure(projectId: string): void {
    const before = this.state(projectId);
    const entry = this.#projects.get(projectId) ?? { failures: 0, openUntil: 0 };
    // A failed probe re-opens at once; it does not need `threshold` more failures.
    entry.failures = before === "half_open" ? this.#threshold : entry.failures + 1;
    if (entry.failures >= this.#threshold) entry.openUntil = this.#now() + this.#cooldownMs;
    this.#projects.set(projectId, entry);
    if (before !== "open" && this.state(projectId) === "open") {
      this.#onChange?.(projectId, "open");
    }
  }

  /** Every project with failures, for status. */
  statuses(): JudgeBreakerStatus[] {
    return [...this.#projects].map(([project_id, entry]) => {
      const state = this.state(project_id);
      return {
        project_id,
        state,
        failures: entry.failures,
        open_until: state === "open" ? new Date(entry.openUntil).toISOString() : null,
      };
    });
  }
}
