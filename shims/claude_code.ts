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
import { claudeCodePlan as core, type HookPlan, TURN_TOOLS_ARG } from "@kiro-learn/core/hooks";
import {
  type AgentPlanOptions,
  lazyTurnReader,
  planPayload,
  type PrecedingReader,
  runShim,
  stdinPlanner,
} from "./run.ts";

/** Turns one Claude Code payload into a plan, or null when there is nothing to record. */
export function claudeCodePlan(
  payload: Record<string, unknown>,
  options: AgentPlanOptions,
): HookPlan | null {
  return planPayload(core, payload, options);
}

/** A turn's tool uses, when the launcher asks for them at the turn's end. */
export const readTurnToolUses: PrecedingReader = lazyTurnReader(
  (_plan, args) => args.includes(TURN_TOOLS_ARG),
  () => import("./_turn_tools.ts").then(({ turnToolUses }) => turnToolUses),
);

if (import.meta.main) {
  await runShim(stdinPlanner(core, "claude hook"), { preceding: readTurnToolUses });
}
