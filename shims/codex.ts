/**
 * OpenAI Codex CLI hook shim (stdin JSON): the plan is core's `codexPlan`; this entry reads the
 * payload, supplies the session id and working directory a payload lacks, and runs the plan.
 * Context is printed as plain stdout, which Codex adds to the model's context for `SessionStart`
 * and `UserPromptSubmit`. At a turn's end (`Stop`) the turn's tool uses are read from the
 * session's rollout file and delivered first (`_codex_rollout.ts`).
 *
 * @module
 */
import { codexPlan as planPayload, type HookPlan } from "@kiro-learn/core/hooks";
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

/** Context a Codex plan needs besides the payload. */
export interface CodexShimPlanOptions {
  /** Permitted environment. */
  env: ShimEnv;
  /** Working directory when the payload has none. */
  fallbackCwd?: () => string;
}

/** Turns one Codex payload into a plan, or null when there is nothing to record. */
export function codexPlan(
  payload: Record<string, unknown>,
  options: CodexShimPlanOptions,
): HookPlan | null {
  return planPayload(payload, {
    fallbackSessionId: () => kiroSessionId({ env: options.env, hostname: clientId() }),
    fallbackCwd: options.fallbackCwd ?? processCwd,
    warn: note,
  });
}

/** Reads stdin (bounded) and plans. */
export async function planFromStdin(input: PlanInput): Promise<HookPlan | null> {
  const stdin = await readStdin();
  if (stdin.overflow) {
    note("codex hook: payload too large to read; nothing recorded");
    return null;
  }
  const payload = parsePayload(stdin.text, "codex hook");
  if (payload === null) return null;
  return codexPlan(payload, { env: input.env });
}

/** A turn's tool uses, read from the rollout at the turn's end. */
export function readTurnToolUses(
  plan: HookPlan,
  context: Parameters<PrecedingReader>[1],
): Promise<PrecedingEvents | null> {
  if (plan.turn === undefined) return Promise.resolve(null);
  // Loaded only at a turn's end: a prompt hook's shim never needs the rollout reader.
  return import("./_codex_rollout.ts").then(({ codexTurnToolUses }) =>
    codexTurnToolUses(plan, context.config)
  );
}

if (import.meta.main) await runShim(planFromStdin, { preceding: readTurnToolUses });
