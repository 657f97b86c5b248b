/**
 * What a hook firing should do, as data: the {@linkcode HookPlan} an agent's payload turns into,
 * shared by the shims (which deliver it themselves) and the collector's hook route (which runs
 * the same plan server-side for the hooks' fast path). No npm and no `node:` modules: a hook
 * loads this on every firing.
 *
 * @module
 */
import type { EventBody, EventKind, Surface } from "@kiro-learn/core/schemas";
import type { SpoolQuery } from "@kiro-learn/core/spool";
import { capHookOutput } from "./truncate.ts";

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
  /**
   * The agent's transcript file (Claude Code's `transcript_path`, at a turn's end): the shim
   * reads the turn's tool uses from it when the launcher asks (`TURN_TOOLS_ARG`).
   */
  transcript?: string;
  /**
   * The turn a turn's end closes (Codex's `turn_id`, at `Stop`): the shim reads that turn's tool
   * uses from the rollout file named by {@linkcode HookPlan.transcript}. Copilot CLI's
   * `agentStop`: its payload's `timestamp`, which finds the turn's answer in the transcript.
   */
  turn?: string;
}

/** Builds the one-event plans of one hook firing (the agents whose hooks record one event each). */
export function oneEventPlans(
  firing: Pick<HookPlan, "surface" | "hook" | "sessionId" | "cwd">,
): {
  /** The plan recording `event`, waiting for the collector as `timeout` says. */
  plan(event: PlannedEvent, timeout: TimeoutClass): HookPlan;
  /** An event that is only stored (no retrieval, nothing printed). */
  stored(kind: PlannedEvent["kind"], body: PlannedEvent["body"]): PlannedEvent;
  /** The plan that only stores one event of `kind` (no retrieval, nothing printed). */
  store(kind: PlannedEvent["kind"], body: PlannedEvent["body"]): HookPlan;
  /**
   * A session's start: only stored when `quiet` (its first prompt carries the session-start
   * block), else the resume block is retrieved and printed.
   */
  started(quiet: boolean): HookPlan;
  /**
   * A prompt: the session-start block (on the session's first prompt) and the prompt's retrieval
   * are printed; null for a missing or blank prompt.
   */
  prompted(prompt: string | undefined): HookPlan | null;
  /** A session's end, noted for `reason` ({@linkcode sessionEndText}), waiting the least. */
  ended(reason: unknown): HookPlan;
} {
  const plan = (event: PlannedEvent, timeout: TimeoutClass): HookPlan => ({
    ...firing,
    events: [event],
    timeout,
  });
  const stored = (kind: PlannedEvent["kind"], body: PlannedEvent["body"]): PlannedEvent => ({
    kind,
    body,
    query: "",
    print: false,
  });
  return {
    plan,
    stored,
    store: (kind, body) => plan(stored(kind, body), "store"),
    started: (quiet) =>
      plan({
        kind: "note",
        body: { type: "text", content: "session started" },
        query: quiet ? "" : "resume",
        print: !quiet,
      }, quiet ? "store" : "retrieve"),
    prompted: (prompt) =>
      prompt === undefined || prompt.trim() === "" ? null : plan({
        kind: "prompt",
        body: { type: "text", content: prompt },
        query: "retrieve-start",
        print: true,
      }, "retrieve"),
    ended: (reason) =>
      plan(stored("note", { type: "text", content: sessionEndText(reason) }), "fast"),
  };
}

/** The text a session's end is noted as: `session ended (<reason>)`, the reason cut to 100. */
export function sessionEndText(reason: unknown): string {
  const why = str(reason)?.trim();
  return why ? `session ended (${why.slice(0, 100)})` : "session ended";
}

/** Longest session id the event schema accepts. */
export const MAX_SESSION_ID = 128;

/** A session id that is usable as `session_id` (1–128 printable characters), or null. */
export function validSessionId(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  // deno-lint-ignore no-control-regex
  if (trimmed === "" || /[\u0000-\u001f\u007f]/.test(trimmed)) return null;
  return trimmed.length > MAX_SESSION_ID ? trimmed.slice(0, MAX_SESSION_ID) : trimmed;
}

/** `value` when it is a string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A hook payload parsed as a JSON object, or why it is not one. */
export type PayloadParse =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; error: string };

/** Parses a hook's stdin (a BOM and surrounding white space allowed) as one JSON object. */
export function parseHookPayload(text: string): PayloadParse {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed === "") return { ok: false, error: "empty input" };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { ok: false, error: "input is not valid JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: "input is not a JSON object" };
  }
  return { ok: true, payload: value as Record<string, unknown> };
}

/**
 * What a hook prints for the contexts its events got back (in order, blanks dropped): the
 * blocks separated by a blank line, capped at the agents' hook output limit.
 */
export function hookStdout(contexts: readonly string[]): string {
  const joined = joinBlocks(contexts);
  return joined !== "" ? capHookOutput(joined + "\n") : "";
}

/** Context blocks as one text: each trimmed, empty ones left out, a blank line between. */
export function joinBlocks(contexts: readonly string[]): string {
  return contexts.map((c) => c.trim()).filter((c) => c !== "").join("\n\n");
}

/**
 * `source.client_id` from a machine name (what `Deno.hostname()` or the launcher read):
 * trimmed, at most 256 characters, `"localhost"` when empty.
 */
export function clientIdFrom(name: string | null | undefined): string {
  const trimmed = (name ?? "").trim();
  return trimmed === "" ? "localhost" : trimmed.slice(0, 256);
}
