/**
 * GitHub Copilot CLI hook shim (stdin JSON): the plan is core's `copilotCliPlan`; this entry reads
 * the payload and the event the hook command names (Copilot's camelCase payloads do not name it),
 * supplies the session id and working directory a payload lacks, and runs the plan. At a turn's
 * end (`agentStop`) the turn's answer is read from the end of the session's transcript, since the
 * payload carries none. It prints one JSON object on every path (core's `copilotHookOutput`):
 * `userPromptSubmitted`'s context as `additionalContext`, `{}` otherwise.
 *
 * Copilot CLI keeps its provider variables (`COPILOT_PROVIDER_*`) out of a hook's environment,
 * and the shim reads only what core's launch module permits anyway.
 *
 * @module
 */
import {
  copilotCliPlan as core,
  copilotHookOutput,
  copilotTurnAnswer,
  type HookPlan,
  TURN_TOOLS_ARG,
} from "@kiro-learn/core/hooks";
import {
  type AgentPlanOptions,
  lazyTurnReader,
  type PlanInput,
  planPayload,
  type PrecedingReader,
  runShim,
  stdinPlanner,
} from "./run.ts";
import { note } from "./_stderr.ts";

/** The most of a transcript's end read for the turn's answer. */
export const MAX_ANSWER_TAIL_BYTES = 512 * 1024;

/**
 * How long a turn's end waits for Copilot CLI to write the turn into its transcript (it writes
 * behind the hook's start: a few milliseconds, longer on a loaded machine). Past this, the
 * answer is the last one there.
 */
export const ANSWER_WAIT_MS = 1500;

/** How often the transcript is read again while waiting. */
const ANSWER_POLL_MS = 25;

/**
 * Turns one Copilot CLI payload into a plan, or null when there is nothing to record; the event
 * is the first of `options.args` that is not a flag.
 */
export function copilotCliPlan(
  payload: Record<string, unknown>,
  options: AgentPlanOptions,
): HookPlan | null {
  return planPayload(core, payload, options);
}

/** The last `maxBytes` of a file as text (a cut first line is the reader's to skip), or null. */
export async function readTail(
  path: string,
  maxBytes = MAX_ANSWER_TAIL_BYTES,
): Promise<string | null> {
  try {
    using file = await Deno.open(path, { read: true });
    const size = (await file.stat()).size;
    const start = Math.max(0, size - maxBytes);
    await file.seek(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = await file.read(buffer.subarray(read));
      if (n === null) break;
      read += n;
    }
    return new TextDecoder().decode(buffer.subarray(0, read));
  } catch {
    return null;
  }
}

/**
 * The answer of the turn that ended at `stopTimestamp`, read from the end of `transcript` until it
 * holds the turn ({@linkcode ANSWER_WAIT_MS} at most).
 */
export async function turnAnswer(
  transcript: string,
  stopTimestamp: number | undefined,
  options: { waitMs?: number } = {},
): Promise<string> {
  const deadline = Date.now() + (options.waitMs ?? ANSWER_WAIT_MS);
  for (;;) {
    const text = await readTail(transcript);
    if (text === null) {
      note("copilot hook: transcript unreadable; the turn's end is recorded without its answer");
      return "";
    }
    const { answer, complete } = copilotTurnAnswer(text, stopTimestamp);
    if (complete || Date.now() >= deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS));
  }
}

const stdinPlan = stdinPlanner(core, "copilot hook");

/** Reads stdin (bounded) and plans; a turn's end gets its answer from the transcript. */
export async function planFromStdin(input: PlanInput): Promise<HookPlan | null> {
  const plan = await stdinPlan(input);
  if (plan === null || plan.transcript === undefined || plan.hook !== "agentStop") return plan;
  const [event] = plan.events;
  const stamp = plan.turn === undefined ? undefined : Number(plan.turn);
  const answer = await turnAnswer(plan.transcript, stamp);
  return { ...plan, events: [{ ...event, body: { type: "text", content: answer } }] };
}

/** What the hook prints: always one JSON object. */
export function copilotOutput(context: string, plan: HookPlan | null): string {
  return copilotHookOutput(plan?.hook ?? null, context);
}

/**
 * A turn's tool uses, read from the session's transcript at the turn's end when the launcher asks
 * ({@linkcode TURN_TOOLS_ARG}: an older install's tool hooks, which fire until it runs again, run
 * the shim without it, so no tool use is recorded twice).
 */
export const readTurnToolUses: PrecedingReader = lazyTurnReader(
  (plan, args) => args.includes(TURN_TOOLS_ARG) && plan.hook === "agentStop",
  () => import("./_copilot_transcript.ts").then(({ copilotTurnToolUses }) => copilotTurnToolUses),
);

if (import.meta.main) {
  await runShim(planFromStdin, { preceding: readTurnToolUses, output: copilotOutput });
}
