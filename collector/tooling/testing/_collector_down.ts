/**
 * The real-client e2e tests' "collector down" step (Codex CLI, Gemini CLI, Copilot CLI): a
 * session runs while the collector is stopped and nothing can start it again; its prompt and its
 * turn's end are spooled by the hooks, and the next collector stores each once.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { AgentSandbox, StoredEvent } from "./claude_client.ts";
import { waitFor } from "@kiro-learn/core/testing";

/**
 * Stops `box`'s collector and moves its starter away (no hook can start it again), runs
 * `session` (one session of the client with `prompt` in `cwd`, asserting what the client
 * printed), waits until its prompt and turn's end are in the spool, puts the starter back and
 * starts the collector. Returns the session's events once the spool is drained, after checking
 * they are its prompt and its turn's end, once each.
 */
export async function sessionWhileDown(
  box: AgentSandbox,
  options: { cwd: string; prompt: string; session: () => Promise<void> },
): Promise<StoredEvent[]> {
  const { cwd, prompt } = options;
  assert.equal((await box.kiroLearn(["stop"], cwd)).code, 0);
  const starter = `${box.dataDir}/bin/start-collector`;
  await Deno.rename(starter, `${starter}.away`);
  const spooled = () =>
    [...Deno.readDirSync(`${box.dataDir}/spool`)].filter((e) => e.name.endsWith(".json")).length;
  try {
    await options.session();
    // The turn's end is delivered in the background: the starter stays away until it spooled.
    await waitFor(() => Promise.resolve(spooled() === 2 ? true : undefined), {
      timeoutMs: 60_000,
      what: "the prompt and the turn's end in the spool",
    });
  } finally {
    await Deno.rename(`${starter}.away`, starter);
  }
  assert.equal((await box.kiroLearn(["start"], cwd)).code, 0);
  const namespace = box.namespaceOf(cwd);
  const delivered = await waitFor(async () => {
    const ours = await box.eventsIn(namespace);
    const first = ours.find((e) => e.kind === "prompt" && e.body.content === prompt);
    if (first === undefined || spooled() !== 0) return undefined;
    return ours.filter((e) => e.session_id === first.session_id);
  }, { timeoutMs: 60_000, what: "the spooled session delivered" });
  assert.deepEqual(delivered.map((e) => e.kind).sort(), ["prompt", "session_summary"]);
  return delivered;
}
