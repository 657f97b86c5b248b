/**
 * The shim runner: an entry turns its hook input into a {@linkcode HookPlan} (a pure step,
 * tested without processes); the runner builds the events, delivers them, prints the context
 * and exits 0 whatever happened.
 *
 * @module
 */
import type { EventBody, EventKind, Surface } from "@kiro-learn/core/schemas";
import { after } from "./_deadline.ts";
import { isInternal, readShimEnv, type ShimEnv } from "./env.ts";
import type { SpoolQuery } from "@kiro-learn/core/spool";
import { note, writeAllSync } from "./_stderr.ts";
import { capHookOutput, serializedBytes } from "./truncate.ts";
import { type AutoStartOutcome, startCollectorDetached } from "./_autostart.ts";
import { STDIN_TIMEOUT_MS } from "./stdin.ts";
import {
  buildEvent,
  clientId,
  deliver,
  type DeliveryResult,
  FAST_EXIT_TIMEOUT_MS,
  loadShimConfig,
  type ShimConfig,
  STORE_ONLY_TIMEOUT_MS,
} from "./transport.ts";

/** One event a hook wants recorded. */
export interface PlannedEvent {
  /** What happened. */
  kind: EventKind;
  /** Its content (capped later). */
  body: EventBody;
  /** Retrieval to ask for with it. */
  query: SpoolQuery;
  /** Print the returned context to stdout. */
  print: boolean;
  /** The working directory, when it differs from the plan's (deferred Kiro tool events). */
  cwd?: string;
}

/** How long a hook may wait for the collector. */
export type TimeoutClass = "retrieve" | "store" | "fast";

/** Everything a hook firing should do. */
export interface HookPlan {
  /** The agent. */
  surface: Surface;
  /** The hook, for diagnostics. */
  hook: string;
  /** Session id. */
  sessionId: string;
  /** Working directory (decides the project). */
  cwd: string;
  /** Events in order. */
  events: PlannedEvent[];
  /** `retrieve`: `shim.timeoutMs`; `store`: at most 1 s; `fast`: at most 0.5 s (SessionEnd). */
  timeout: TimeoutClass;
}

/** What the hook firing did. */
export interface PlanOutcome {
  /** Printed to stdout ('' when nothing). */
  stdout: string;
  /** One per event. */
  results: DeliveryResult[];
}

/** The per-post timeout of a plan. */
export function timeoutFor(plan: HookPlan, config: ShimConfig): number {
  switch (plan.timeout) {
    case "retrieve":
      return config.timeoutMs;
    case "store":
      return Math.min(config.timeoutMs, STORE_ONLY_TIMEOUT_MS);
    case "fast":
      return Math.min(config.timeoutMs, FAST_EXIT_TIMEOUT_MS);
  }
}

/** The session-start line when the collector is down and could not be started. */
export function collectorDownLine(outcome: AutoStartOutcome): string {
  const why = outcome.status === "started" ? "starting" : outcome.message;
  return `[kiro-learn] no project memory this session: the collector is not running (${why}). ` +
    "Run `kiro-learn start` (or `kiro-learn doctor`).";
}

/** Builds, delivers and collects the context of a plan. Never throws. */
export async function executePlan(
  plan: HookPlan,
  config: ShimConfig,
  options: {
    env?: ShimEnv;
    /** Starts a collector that is down (default: run the installed starter, detached). */
    startCollector?: (starter: string) => AutoStartOutcome;
  } = {},
): Promise<PlanOutcome> {
  if (plan.events.length === 0) return { stdout: "", results: [] };
  const client = clientId();
  // A body over the cap is cut: scrub it first, so a secret or a <private> span that straddles
  // the cut cannot survive as a fragment the collector's rules no longer recognise. (Rare: the
  // scrubber is loaded only then, off the hook's start-up.)
  const over = (body: EventBody) => serializedBytes(body) > config.maxBodyBytes;
  const scrub = plan.events.some((p) => over(p.body))
    ? (await import("@kiro-learn/core/privacy")).scrubEventBody
    : null;
  const items = plan.events.map((planned) => ({
    event: buildEvent({
      kind: planned.kind,
      body: scrub !== null && over(planned.body) ? scrub(planned.body) : planned.body,
    }, {
      surface: plan.surface,
      sessionId: plan.sessionId,
      cwd: planned.cwd ?? plan.cwd,
      maxBodyBytes: config.maxBodyBytes,
      env: options.env,
      clientId: client,
    }),
    query: planned.query,
  }));
  let autoStart: AutoStartOutcome | null = null;
  const results = await deliver(items, config, {
    timeoutMs: timeoutFor(plan, config),
    onDown: () => autoStart = (options.startCollector ?? startCollectorDetached)(config.starter),
  });
  const contexts = results
    .filter((result, i) => plan.events[i].print && result.context.trim() !== "")
    .map((result) => result.context.trim());
  // A session that starts without memory, and will not get it, says so once (and what to run).
  const starting = plan.events.findIndex((e) => e.query === "resume");
  if (
    starting >= 0 && results[starting].outcome !== "posted" && autoStart !== null &&
    (autoStart as AutoStartOutcome).status !== "started"
  ) {
    contexts.push(collectorDownLine(autoStart));
  }
  const stdout = contexts.length > 0 ? capHookOutput(contexts.join("\n\n") + "\n") : "";
  return { stdout, results };
}

/** What an entry's planner receives. */
export interface PlanInput {
  /** The permitted environment. */
  env: ShimEnv;
  /** Command-line arguments. */
  args: string[];
}

/**
 * Runs one hook firing and exits 0: nothing when `KIRO_LEARN_INTERNAL` is set, the context
 * (only) on stdout, diagnostics on stderr. A watchdog ends the process if anything hangs
 * past every timeout it could legitimately spend.
 */
export async function runShim(
  plan: (input: PlanInput) => Promise<HookPlan | null> | HookPlan | null,
): Promise<never> {
  try {
    const env = readShimEnv();
    if (isInternal(env)) Deno.exit(0);
    const config = loadShimConfig({ env });
    const budget = STDIN_TIMEOUT_MS + 2 * (config?.timeoutMs ?? 2000) + 1000;
    // Not unref'd (see deadline.ts), which is fine: this function always ends in Deno.exit.
    after(budget, () => {
      note("hook took too long; giving up");
      Deno.exit(0);
    });
    const planned = await plan({ env, args: [...Deno.args] });
    if (planned !== null && config !== null) {
      const outcome = await executePlan(planned, config, { env });
      if (outcome.stdout !== "") {
        writeAllSync(Deno.stdout, new TextEncoder().encode(outcome.stdout));
      }
    }
  } catch (error) {
    note(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  }
  Deno.exit(0);
}

/** A JSON object, or null (with a note) for anything else. */
export function parsePayload(text: string, what: string): Record<string, unknown> | null {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed === "") {
    note(`${what}: empty input; nothing recorded`);
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    note(`${what}: input is not valid JSON; nothing recorded`);
    return null;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    note(`${what}: input is not a JSON object; nothing recorded`);
    return null;
  }
  return value as Record<string, unknown>;
}

/** `value` when it is a string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The process's working directory, or "." if even that is unavailable. */
export function processCwd(): string {
  try {
    return Deno.cwd();
  } catch {
    return ".";
  }
}
