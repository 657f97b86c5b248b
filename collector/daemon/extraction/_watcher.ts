/**
 * The extraction watcher: per project, fire a run when enough is queued or the project has been
 * idle, never lose a trigger that arrives during a run, and stop hammering a failing agent with a
 * circuit breaker that half-opens after a cool-down (kiro-learn's never recovered).
 *
 * @module
 */

/** What a run reports back. */
export interface RunOutcome {
  /** The run succeeded (records committed, or nothing worth remembering). */
  ok: boolean;
  /** Queue rows it consumed. */
  consumed: number;
  /** Why it failed, when it did. */
  error?: string;
}

import type { EventKind, Surface } from "@kiro-learn/core/schemas";
import { type BreakerState, CircuitBreaker } from "../runtime/mod.ts";

export type { BreakerState };

/**
 * Longest a project waits for an open Claude Code turn to end before it is extracted anyway
 * (ms). Claude Code's tool uses and its Stop arrive together at the turn's end, so a turn longer
 * than the idle gap would otherwise be extracted from its prompt alone; a turn whose end never
 * comes (the agent killed, the delivery lost) is extracted after this.
 */
export const OPEN_TURN_MAX_WAIT_MS = 10 * 60_000;

/** What the watcher is told about a queued event (absent: an ordinary event). */
export interface QueuedEventInfo {
  /** The event's kind. */
  kind?: EventKind;
  /** The agent it came from. */
  surface?: Surface;
  /** When it happened (the event's `valid_time`). */
  at?: string;
}

/**
 * Agents whose turn's tool uses arrive only at the turn's end: Claude Code (read from its
 * transcript at Stop) and Codex CLI (read from its rollout at Stop).
 */
const DEFERRED_TURN_SURFACES: readonly Surface[] = ["claude-code", "codex"];

/**
 * The event opens a turn whose other events come only at its end (a prompt of one of
 * {@linkcode DEFERRED_TURN_SURFACES}). Kiro's tool hooks fire live, so a Kiro prompt opens
 * nothing to wait for.
 */
function opensDeferredTurn(info: QueuedEventInfo): boolean {
  return info.kind === "prompt" && info.surface !== undefined &&
    DEFERRED_TURN_SURFACES.includes(info.surface);
}

/** One project's trigger state, as status shows it. */
export interface ProjectWatchState {
  /** Project id. */
  project_id: string;
  /** Bytes queued, as last known. */
  queued_bytes: number;
  /** A run is in progress. */
  running: boolean;
  /** Breaker state. */
  breaker: BreakerState;
  /** Consecutive failed runs. */
  failures: number;
  /** When an open breaker lets the next probe through (ISO), if open. */
  open_until: string | null;
  /** Last run's end time, result, and why it failed (null when it did not). */
  last_run: { at: string; ok: boolean; error: string | null } | null;
  /**
   * When the next run is due (ISO): after the idle gap (after an open Claude Code turn's wait
   * while its end has not arrived), or when an open breaker's cool-down ends; null when none is
   * scheduled (nothing queued, or a run is in progress).
   */
  next_attempt_at: string | null;
}

/** Watcher settings and hooks. */
export interface WatcherOptions {
  /** Idle gap before a run (ms). */
  idleMs: number;
  /** Queue size that fires a run at once (bytes). */
  sizeThresholdBytes: number;
  /** Consecutive failures that open the breaker. */
  breakerThreshold: number;
  /** How long the breaker stays open before a probe run (ms). */
  breakerCooldownMs: number;
  /** Runs extraction for a project. Must not throw (a throw counts as a failed run). */
  run: (projectId: string) => Promise<RunOutcome>;
  /** Bytes currently queued for a project (the queue table is the truth). */
  queuedBytes: (projectId: string) => Promise<number>;
  /** Queue size past which the project is compacted before extraction (bytes); 0 = never. */
  compactionThresholdBytes?: number;
  /** Compacts a project's queue. Must not throw. */
  compact?: (projectId: string) => Promise<void>;
  /** Told when a breaker opens or closes. */
  onBreaker?: (projectId: string, state: BreakerState) => void;
  /** Time and timers (default: the real ones); tests pass a fake one and move time by hand. */
  clock?: WatcherClock;
}

/** The time and timers the watcher uses. */
export interface WatcherClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` after `ms`; returns a handle for {@linkcode WatcherClock.clearTimeout}. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a pending call (a missing or spent handle is ignored). */
  clearTimeout(handle: unknown): void;
}

/** The real clock. */
export const REAL_CLOCK: WatcherClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as number | undefined),
};

interface ProjectState {
  bytes: number;
  timer?: unknown;
  /** When the timer fires (epoch ms), while one is set. */
  dueAt: number | null;
  running: boolean;
  lastRun: { at: string; ok: boolean; error: string | null } | null;
  current?: Promise<void>;
  /** The project's rows moved to another id: drop this state when the run in progress ends. */
  retired?: boolean;
  /**
   * The newest event is a Claude Code prompt whose turn has not ended: when the wait for it ends
   * (epoch ms); null otherwise.
   */
  turnOpenUntil: number | null;
  /** When that prompt happened (epoch ms), when it said. */
  turnOpenedAt: number | null;
}

/** Fires extraction runs per project. */
export class ExtractionWatcher {
  #options: WatcherOptions;
  #clock: WatcherClock;
  #breaker: CircuitBreaker;
  #projects = new Map<string, ProjectState>();
  #closed = false;

  /** Creates a watcher. */
  constructor(options: WatcherOptions) {
    this.#options = options;
    this.#clock = options.clock ?? REAL_CLOCK;
    this.#breaker = new CircuitBreaker({
      threshold: options.breakerThreshold,
      cooldownMs: options.breakerCooldownMs,
      now: () => this.#clock.now(),
      onChange: options.onBreaker,
    });
  }

  #state(projectId: string): ProjectState {
    let state = this.#projects.get(projectId);
    if (!state) {
      state = {
        bytes: 0,
        dueAt: null,
        running: false,
        lastRun: null,
        turnOpenUntil: null,
        turnOpenedAt: null,
      };
      this.#projects.set(projectId, state);
    }
    return state;
  }

  /**
   * An event was queued for `projectId`. A Claude Code prompt makes the next run wait for its
   * turn's end (any event that happened after it) up to {@linkcode OPEN_TURN_MAX_WAIT_MS}, not
   * just the idle gap.
   */
  notify(projectId: string, bytes: number, info: QueuedEventInfo = {}): void {
    if (this.#closed) return;
    const state = this.#state(projectId);
    state.bytes += bytes;
    const at = info.at === undefined ? null : Date.parse(info.at);
    // An event from before the open prompt (an earlier turn's tool uses and end, delivered late,
    // from the background or the spool) does not end the open turn; anything else does.
    const fromEarlierTurn = at !== null && state.turnOpenedAt !== null && at < state.turnOpenedAt;
    if (opensDeferredTurn(info)) {
      state.turnOpenUntil = this.#clock.now() + OPEN_TURN_MAX_WAIT_MS;
      state.turnOpenedAt = at;
    } else if (!fromEarlierTurn) {
      state.turnOpenUntil = null;
      state.turnOpenedAt = null;
    }
    // During a run nothing is dropped: when it ends, the queue is re-read and re-armed.
    if (state.running) return;
    if (state.bytes >= this.#options.sizeThresholdBytes) {
      this.#fire(projectId);
    } else {
      this.#schedule(projectId, this.#quietGap(state));
    }
  }

  /** How long the project must stay quiet before a run: the idle gap, or an open turn's wait. */
  #quietGap(state: ProjectState): number {
    const idleMs = this.#options.idleMs;
    if (state.turnOpenUntil === null) return idleMs;
    return Math.max(idleMs, state.turnOpenUntil - this.#clock.now());
  }

  /** Startup re-arm: `bytes` are already queued for `projectId`. */
  arm(projectId: string, bytes: number): void {
    if (bytes <= 0) return;
    this.notify(projectId, bytes);
  }

  /**
   * The project's rows moved to another project id: its timer stops and its state goes (after
   * a run in progress ends), so status lists the project once, under its new id.
   */
  retire(projectId: string): void {
    const state = this.#projects.get(projectId);
    if (state === undefined) return;
    this.#clock.clearTimeout(state.timer);
    state.timer = undefined;
    state.dueAt = null;
    if (state.running) state.retired = true;
    else this.#projects.delete(projectId);
  }

  /** Runs a project now (the CLI's and tests' way to force extraction). */
  async flush(projectId: string): Promise<void> {
    const state = this.#state(projectId);
    if (state.running) await state.current;
    this.#fire(projectId, { force: true });
    await state.current;
  }

  #schedule(projectId: string, delayMs: number): void {
    const state = this.#state(projectId);
    this.#clock.clearTimeout(state.timer);
    state.dueAt = this.#clock.now() + Math.max(0, delayMs);
    state.timer = this.#clock.setTimeout(() => this.#fire(projectId), Math.max(0, delayMs));
  }

  #fire(projectId: string, options: { force?: boolean } = {}): void {
    if (this.#closed) return;
    const state = this.#state(projectId);
    this.#clock.clearTimeout(state.timer);
    state.timer = undefined;
    state.dueAt = null;
    if (state.running) return;
    const openUntil = this.#breaker.openUntil(projectId);
    if (!options.force && openUntil > 0) {
      // Open: wait for the cool-down, then let one probe run through (half-open).
      this.#schedule(projectId, openUntil - this.#clock.now());
      return;
    }
    state.running = true;
    state.current = this.#runOnce(projectId, state);
  }

  async #runOnce(projectId: string, state: ProjectState): Promise<void> {
    let outcome: RunOutcome = { ok: false, consumed: 0 };
    try {
      const threshold = this.#options.compactionThresholdBytes ?? 0;
      if (threshold > 0 && this.#options.compact) {
        const queued = await this.#options.queuedBytes(projectId);
        if (queued > threshold) await this.#options.compact(projectId);
      }
      outcome = await this.#options.run(projectId);
    } catch (error) {
      outcome = {
        ok: false,
        consumed: 0,
        error: error instanceof Error ? error.message : String(error),
      };
    }
    if (outcome.ok) this.#breaker.recordSuccess(projectId);
    else this.#breaker.recordFailure(projectId);
    state.lastRun = {
      at: new Date().toISOString(),
      ok: outcome.ok,
      error: outcome.ok ? null : outcome.error ?? "the run failed (no reason given)",
    };
    try {
      state.bytes = await this.#options.queuedBytes(projectId);
    } catch {
      // Keep the old figure; the next notify corrects it.
    }
    state.running = false;
    if (state.retired) {
      this.#projects.delete(projectId);
      return;
    }
    if (this.#closed || state.bytes <= 0) return;
    const again = outcome.ok && outcome.consumed > 0 &&
      state.bytes >= this.#options.sizeThresholdBytes;
    if (again) {
      this.#fire(projectId);
    } else if (this.#breaker.openUntil(projectId) > 0) {
      this.#schedule(projectId, this.#breaker.openUntil(projectId) - this.#clock.now());
    } else {
      // Rows left (new during the run, or the run failed): try again after the idle gap (or
      // when a turn opened during the run has ended).
      this.#schedule(projectId, this.#quietGap(state));
    }
  }

  /** Per-project state for status and the viewer. */
  states(): ProjectWatchState[] {
    return [...this.#projects.entries()].map(([project_id, s]) => {
      const openUntil = this.#breaker.openUntil(project_id);
      return {
        project_id,
        queued_bytes: s.bytes,
        running: s.running,
        breaker: this.#breaker.state(project_id),
        failures: this.#breaker.failures(project_id),
        open_until: openUntil > 0 ? new Date(openUntil).toISOString() : null,
        last_run: s.lastRun,
        next_attempt_at: s.dueAt === null ? null : new Date(s.dueAt).toISOString(),
      };
    });
  }

  /** Stops all timers and waits for runs in progress to finish. */
  async close(): Promise<void> {
    this.#closed = true;
    const running: Promise<void>[] = [];
    for (const state of this.#projects.values()) {
      this.#clock.clearTimeout(state.timer);
      if (state.current) running.push(state.current);
    }
    await Promise.allSettled(running);
  }
}
