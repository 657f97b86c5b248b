/**
 * The shim runner: an entry turns its hook input into a {@linkcode HookPlan} (a pure step,
 * tested without processes); the runner builds the events, delivers them, prints the context
 * and exits 0 whatever happened.
 *
 * @module
 */
import {
  firingFromArgs,
  type HookFiring,
  type HookPlan,
  hookStdout,
  NO_WAIT_ARG,
  parseHookPayload,
  planEvents,
} from "@kiro-learn/core/hooks";
import { currentActor } from "@kiro-learn/core/project";
import { after } from "./_deadline.ts";
import { isInternal, readShimEnv, type ShimEnv } from "./env.ts";
import { note, writeAllSync } from "./_stderr.ts";
import { type AutoStartOutcome, startCollectorDetached } from "./_autostart.ts";
import { firstDownNotice } from "./_down_notice.ts";
import { kiroSessionId } from "./session.ts";
import { readStdin, STDIN_TIMEOUT_MS } from "./stdin.ts";
import {
  clientId,
  deliver,
  type Delivery,
  type DeliveryResult,
  FAST_EXIT_TIMEOUT_MS,
  loadShimConfig,
  projectFor,
  type ShimConfig,
  STORE_ONLY_TIMEOUT_MS,
} from "./transport.ts";

export { type HookPlan, type PlannedEvent, str, type TimeoutClass } from "@kiro-learn/core/hooks";

/** What the hook firing did. */
export interface PlanOutcome {
  /** Printed to stdout ('' when nothing). */
  stdout: string;
  /** One per event. */
  results: DeliveryResult[];
}

/**
 * Events a shim delivers before a plan's own (a turn's tool uses, read from the transcript,
 * before the turn's end), and what it does once they are delivered.
 */
export interface PrecedingEvents {
  /** The events, in the order they happened. */
  deliveries: Delivery[];
  /** Called once each is posted, spooled or lost (said on stderr). */
  delivered(): void;
}

/** Reads the events to deliver before a plan's own, or null when there are none. */
export type PrecedingReader = (
  plan: HookPlan,
  context: { config: ShimConfig; args: readonly string[] },
) => Promise<PrecedingEvents | null>;

/** Reads a turn's tool uses for `plan` from the agent's own file, or null when there are none. */
export type TurnToolsReader = (
  plan: HookPlan,
  config: ShimConfig,
) => Promise<PrecedingEvents | null>;

/**
 * A {@linkcode PrecedingReader} for a turn's tool uses: when `gate` passes for the plan and the
 * hook's arguments, the reader `load` returns is loaded and run; otherwise nothing is loaded
 * (a prompt hook's shim never pays for the transcript reader's import).
 */
export function lazyTurnReader(
  gate: (plan: HookPlan, args: readonly string[]) => boolean,
  load: () => Promise<TurnToolsReader>,
): PrecedingReader {
  return (plan, context) =>
    gate(plan, context.args)
      ? load().then((read) => read(plan, context.config))
      : Promise.resolve(null);
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
    /** The launcher's firing: event ids derive from it, so a second delivery is no duplicate. */
    firing?: HookFiring | null;
    /** Spool without posting (the launcher found the collector hung). */
    noWait?: boolean;
    /** Delivered first, in the same batch (so under the same budget and spool). */
    preceding?: PrecedingEvents | null;
  } = {},
): Promise<PlanOutcome> {
  if (plan.events.length === 0) return { stdout: "", results: [] };
  const before = options.preceding?.deliveries ?? [];
  const planned = await planEvents(plan, {
    project: (cwd) => {
      const project = projectFor(cwd, options.env);
      return { root: project.project_root, namespace: project.namespace };
    },
    actor: currentActor(options.env),
    clientId: clientId(),
    maxBodyBytes: config.maxBodyBytes,
    firing: options.firing,
    warn: note,
  });
  let autoStart: AutoStartOutcome | null = null;
  const all = await deliver([...before, ...planned], config, {
    timeoutMs: timeoutFor(plan, config),
    onDown: () => autoStart = (options.startCollector ?? startCollectorDetached)(config.starter),
    spoolOnly: options.noWait
      ? "the collector did not answer the hook's launcher within its budget"
      : undefined,
  });
  options.preceding?.delivered();
  const results = all.slice(before.length);
  const contexts = results.filter((_, i) => plan.events[i].print).map((r) => r.context);
  // A session that starts without memory, and will not get it, says so (and what to run), once:
  // at its start, or, where the start only stored, with the first prompt meant to carry the
  // start block (every prompt of such a session asks for it until one is answered).
  const starting = plan.events.findIndex((e) =>
    e.query === "resume" || e.query === "retrieve-start"
  );
  if (
    starting >= 0 && results[starting].outcome !== "posted" && autoStart !== null &&
    (autoStart as AutoStartOutcome).status !== "started" &&
    firstDownNotice(config.spoolDir, plan.sessionId)
  ) {
    contexts.push(collectorDownLine(autoStart));
  }
  return { stdout: hookStdout(contexts), results };
}

/** What an entry's planner receives. */
export interface PlanInput {
  /** The permitted environment. */
  env: ShimEnv;
  /** Command-line arguments. */
  args: string[];
}

/**
 * What a hook prints for the context it got (`""` when none) and its plan (null when there was
 * none, or when it gave up): an agent that wants structured output on every path (Gemini CLI's
 * JSON) says so here; by default the context is printed as is, and nothing when there is none.
 */
export type HookOutput = (context: string, plan: HookPlan | null) => string;

/**
 * Runs one hook firing and exits 0: nothing when `KIRO_LEARN_INTERNAL` is set, the context
 * (only) on stdout, diagnostics on stderr. A watchdog ends the process if anything hangs
 * past every timeout it could legitimately spend. With `output`, what it returns is printed on
 * every one of those paths, exactly once.
 */
export async function runShim(
  plan: (input: PlanInput) => Promise<HookPlan | null> | HookPlan | null,
  options: {
    /** Events to deliver before the plan's own (Claude Code's turn tool uses). */
    preceding?: PrecedingReader;
    /** What to print (default: the context, as is). */
    output?: HookOutput;
  } = {},
): Promise<never> {
  let planned: HookPlan | null = null;
  let printed = false;
  const finish = (context: string): never => {
    if (!printed) {
      printed = true;
      const text = options.output ? options.output(context, planned) : context;
      if (text !== "") writeAllSync(Deno.stdout, new TextEncoder().encode(text));
    }
    Deno.exit(0);
  };
  try {
    const env = readShimEnv();
    if (isInternal(env)) finish("");
    const config = loadShimConfig({ env });
    const budget = STDIN_TIMEOUT_MS + 2 * (config?.timeoutMs ?? 2000) + 1000;
    // Not unref'd (see deadline.ts), which is fine: this function always ends in Deno.exit.
    after(budget, () => {
      note("hook took too long; giving up");
      finish("");
    });
    const args = [...Deno.args];
    planned = await plan({ env, args });
    if (planned !== null && config !== null) {
      const preceding = await options.preceding?.(planned, { config, args });
      const outcome = await executePlan(planned, config, {
        env,
        firing: firingFromArgs(args),
        noWait: args.includes(NO_WAIT_ARG),
        preceding,
      });
      finish(outcome.stdout);
    }
  } catch (error) {
    note(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  }
  return finish("");
}

/**
 * Core's plan of one JSON hook payload (Claude Code's, Codex's, Gemini CLI's): the payload and
 * what to use where it lacks a session id or a working directory.
 */
export type PayloadPlanner = (
  payload: Record<string, unknown>,
  options: {
    fallbackSessionId: () => string;
    fallbackCwd: () => string;
    warn?: (message: string) => void;
    /** The event the hook command names (Copilot CLI's payloads name none). */
    event?: string;
  },
) => HookPlan | null;

/** Context a JSON-payload agent's plan needs besides the payload. */
export interface AgentPlanOptions {
  /** Permitted environment. */
  env: ShimEnv;
  /** Session id when the payload has none (it always should). */
  fallbackSessionId?: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd?: () => string;
  /** The hook's command-line arguments: the first that is not a flag names the event. */
  args?: readonly string[];
}

/**
 * Runs core's `planner` on one payload as a shim does: a payload without a session id gets this
 * process's (Kiro's per-agent-process id), one without a folder the process's own, and why
 * nothing is recorded goes to stderr.
 */
export function planPayload(
  planner: PayloadPlanner,
  payload: Record<string, unknown>,
  options: AgentPlanOptions,
): HookPlan | null {
  return planner(payload, {
    fallbackSessionId: options.fallbackSessionId ??
      (() => kiroSessionId({ env: options.env, hostname: clientId() })),
    fallbackCwd: options.fallbackCwd ?? processCwd,
    warn: note,
    event: options.args?.find((arg) => !arg.startsWith("--")),
  });
}

/**
 * An entry's planner for a JSON payload on stdin: reads it (bounded), parses it and plans it with
 * `planner`; `label` (`"codex hook"`) names the hook in what goes to stderr.
 */
export function stdinPlanner(
  planner: PayloadPlanner,
  label: string,
): (input: PlanInput) => Promise<HookPlan | null> {
  return async (input) => {
    const stdin = await readStdin();
    if (stdin.overflow) {
      note(`${label}: payload too large to read; nothing recorded`);
      return null;
    }
    const payload = parsePayload(stdin.text, label);
    if (payload === null) return null;
    return planPayload(planner, payload, { env: input.env, args: input.args });
  };
}

/** A JSON object, or null (with a note) for anything else. */
export function parsePayload(text: string, what: string): Record<string, unknown> | null {
  const parsed = parseHookPayload(text);
  if (parsed.ok) return parsed.payload;
  note(`${what}: ${parsed.error}; nothing recorded`);
  return null;
}

/** The process's working directory, or "." if even that is unavailable. */
export function processCwd(): string {
  try {
    return Deno.cwd();
  } catch {
    return ".";
  }
}
