/**
 * Claude Code hook shim (stdin JSON): the plan is core's `claudeCodePlan` (the collector's hook
 * route runs the same one for the launcher's fast path); this entry reads the payload, supplies
 * the session id and working directory a payload lacks, and runs the plan. Context is printed as
 * plain stdout, which Claude Code adds for SessionStart and UserPromptSubmit. At a turn's end
 * (`Stop`), when the launcher asks ({@linkcode TURN_TOOLS_ARG}), the turn's tool uses are read
 * from the transcript and delivered first (`_turn_tools.ts`).
 *
 * @module
 */
import {
  claudeCodePlan as planPayload,
  type HookPlan,
  TURN_TOOLS_ARG,
} from "@kiro-learn/core/hooks";
import type { ShimEnv } from "./env.ts";
import {
  parsePayload,
  type PlanInput,
  type PrecedingEvents,
  type PrecedingReader,
  processCwd,
  runShim,
} from "./run.ts";
import { kiroSessionId } from "./session.ts";
import { note } from "./_stderr.ts";
import { readStdin } from "./stdin.ts";
import { clientId } from "./transport.ts";

/** Context a Claude Code plan needs besides the payload. */
export interface ClaudePlanOptions {
  /** Permitted environment. */
  env: ShimEnv;
  /** Session id when the payload has none (it always should). */
  fallbackSessionId?: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd?: () => string;
}

/** Turns one Claude Code payload into a plan, or null when there is nothing to record. */
export function claudeCodePlan(
  payload: Record<string, unknown>,
  options: ClaudePlanOptions,
): HookPlan | null {
  return planPayload(payload, {
    fallbackSessionId: options.fallbackSessionId ??
      (() => kiroSessionId({ env: options.env, hostname: clientId() })),
    fallbackCwd: options.fallbackCwd ?? processCwd,
    warn: note,
  });
}

/** Reads stdin (bounded) and plans. */
export async function planFromStdin(input: PlanInput): Promise<HookPlan | null> {
  const stdin = await readStdin();
  if (stdin.overflow) {
    note("claude hook: payload too large to read; nothing recorded");
    return null;
  }
  const payload = parsePayload(stdin.text, "claude hook");
  if (payload === null) return null;
  return claudeCodePlan(payload, { env: input.env });
}

/** A turn's tool uses, when the launcher asks for them at the turn's end. */
export function readTurnToolUses(
  plan: HookPlan,
  context: Parameters<PrecedingReader>[1],
): Promise<PrecedingEvents | null> {
  if (!context.args.includes(TURN_TOOLS_ARG)) return Promise.resolve(null);
  // Loaded only at a turn's end: a prompt hook's shim never needs the transcript reader.
  return import("./_turn_tools.ts").then(({ turnToolUses }) => turnToolUses(plan, context.config));
}

if (import.meta.main) await runShim(planFromStdin, { preceding: readTurnToolUses });
