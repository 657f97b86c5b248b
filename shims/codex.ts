/**
 * OpenAI Codex CLI hook shim (stdin JSON): the plan is core's `codexPlan` (the collector's hook
 * route runs the same one for the launcher's fast path); this entry reads the payload, supplies
 * the session id and working directory a payload lacks, and runs the plan. Context is printed as
 * plain stdout, which Codex adds to the model's context for `SessionStart` and
 * `UserPromptSubmit`. At a turn's end (`Stop`) the turn's tool uses are read from the session's
 * rollout file and delivered first (`_codex_rollout.ts`).
 *
 * @module
 */
import { codexHookOutput, codexPlan as core, type HookPlan } from "@kiro-learn/core/hooks";
import {
  type AgentPlanOptions,
  lazyTurnReader,
  planPayload,
  type PrecedingReader,
  runShim,
  stdinPlanner,
} from "./run.ts";

/** Turns one Codex payload into a plan, or null when there is nothing to record. */
export function codexPlan(
  payload: Record<string, unknown>,
  options: AgentPlanOptions,
): HookPlan | null {
  return planPayload(core, payload, options);
}

/** A turn's tool uses, read from the rollout at the turn's end. */
export const readTurnToolUses: PrecedingReader = lazyTurnReader(
  (plan) => plan.turn !== undefined,
  () => import("./_codex_rollout.ts").then(({ codexTurnToolUses }) => codexTurnToolUses),
);

if (import.meta.main) {
  await runShim(stdinPlanner(core, "codex hook"), {
    preceding: readTurnToolUses,
    output: (context, plan) => codexHookOutput(plan?.hook ?? null, context),
  });
}
