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
  geminiCliPlan as planPayload,
  geminiHookOutput,
  type HookPlan,
} from "@kiro-learn/core/hooks";
import type { ShimEnv } from "./env.ts";
import { parsePayload, type PlanInput, processCwd, runShim } from "./run.ts";
import { kiroSessionId } from "./session.ts";
import { note } from "./_stderr.ts";
import { readStdin } from "./stdin.ts";
import { clientId } from "./transport.ts";

/** Context a Gemini CLI plan needs besides the payload. */
export interface GeminiShimPlanOptions {
  /** Permitted environment. */
  env: ShimEnv;
  /** Session id when the payload has none (it always should). */
  fallbackSessionId?: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd?: () => string;
}

/** Turns one Gemini CLI payload into a plan, or null when there is nothing to record. */
export function geminiCliPlan(
  payload: Record<string, unknown>,
  options: GeminiShimPlanOptions,
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
    note("gemini hook: payload too large to read; nothing recorded");
    return null;
  }
  const payload = parsePayload(stdin.text, "gemini hook");
  if (payload === null) return null;
  return geminiCliPlan(payload, { env: input.env });
}

/** What the hook prints: always one JSON object. */
export function geminiOutput(context: string, plan: HookPlan | null): string {
  return geminiHookOutput(plan?.hook ?? null, context);
}

if (import.meta.main) await runShim(planFromStdin, { output: geminiOutput });
