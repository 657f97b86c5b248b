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
import {
  geminiCliPlan as core,
  geminiHookOutput,
  type HookPlan,
  TURN_TOOLS_ARG,
} from "@kiro-learn/core/hooks";
import {
  type AgentPlanOptions,
  lazyTurnReader,
  planPayload,
  type PrecedingReader,
  runShim,
  stdinPlanner,
} from "./run.ts";

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

/**
 * A turn's tool uses, read from the session's chat file at the turn's end when the launcher asks
 * ({@linkcode TURN_TOOLS_ARG}: an older install's AfterTool hooks, which fire until it runs
 * again, run the shim without it, so no tool use is recorded twice).
 */
export const readTurnToolUses: PrecedingReader = lazyTurnReader(
  (plan, args) => args.includes(TURN_TOOLS_ARG) && plan.hook === "AfterAgent",
  () => import("./_gemini_transcript.ts").then(({ geminiTurnToolUses }) => geminiTurnToolUses),
);

if (import.meta.main) {
  await runShim(stdinPlanner(core, "gemini hook"), {
    preceding: readTurnToolUses,
    output: geminiOutput,
  });
}
