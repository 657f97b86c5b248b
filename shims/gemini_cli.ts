/**
 * Gemini CLI hook shim (stdin JSON): the plan is core's `geminiCliPlan`; this entry reads the
 * payload, supplies the session id and working directory a payload lacks, and runs the plan.
 * It prints one JSON object on every path (core's `geminiHookOutput`): `BeforeAgent`'s context
 * as `hookSpecificOutput.additionalContext`, `{}` otherwise — a collector that is down or hung, a
 * payload that is not JSON, the watchdog giving up. Gemini CLI would otherwise read the hook's
 * stderr as a message for the user.
 *
 * The shim reads only the environment core's launch module permits (never `GEMINI_API_KEY`,
 * which Gemini CLI hands every hook process).
 *
 * @module
 */
import { geminiCliPlan as core, geminiHookOutput, type HookPlan } from "@kiro-learn/core/hooks";
import { type AgentPlanOptions, planPayload, runShim, stdinPlanner } from "./run.ts";

/** Turns one Gemini CLI payload into a plan, or null when there is nothing to record. */
export function geminiCliPlan(
  payload: Record<string, unknown>,
  options: AgentPlanOptions,
): HookPlan | null {
  return planPayload(core, payload, options);
}

/** What the hook prints: always one JSON object. */
export function geminiOutput(context: string, plan: HookPlan | null): string {
  return geminiHookOutput(plan?.hook ?? null, context);
}

if (import.meta.main) await runShim(stdinPlanner(core, "gemini hook"), { output: geminiOutput });
