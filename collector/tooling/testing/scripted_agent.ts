/**
 * Test helper: a scripted ACP agent set up in a temp dir, ready to be the collector's agent.
 *
 * @module
 */

/** A step of the scripted agent (see collector/daemon/llm/testdata/scripted_agent.ts). */
export type ScriptStep = Record<string, unknown>;

/** Paths and settings for one scripted agent. */
export interface ScriptedAgent {
  /** The command the collector runs. */
  command: string[];
  /** Environment the agent reads (give it to the daemon; its children inherit it). */
  env: Record<string, string>;
  /** Prompts the agent received so far. */
  prompts(): Promise<{ text: string; internal: string | null }[]>;
  /** Replaces the script; the step counter keeps counting. */
  setScript(steps: ScriptStep[]): Promise<void>;
}

const AGENT = new URL("../../daemon/llm/testdata/scripted_agent.ts", import.meta.url).pathname;

/** Creates a scripted agent that plays `steps`, one per session. */
export async function scriptedAgent(steps: ScriptStep[]): Promise<ScriptedAgent> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-agent-" });
  const script = `${dir}/script.json`;
  await Deno.writeTextFile(script, JSON.stringify(steps));
  return {
    command: [Deno.execPath(), "run", "-A", AGENT],
    env: {
      SCRIPTED_AGENT_SCRIPT: script,
      SCRIPTED_AGENT_STATE: `${dir}/state`,
      SCRIPTED_AGENT_LOG: `${dir}/log.ndjson`,
    },
    async prompts() {
      let text = "";
      try {
        text = await Deno.readTextFile(`${dir}/log.ndjson`);
      } catch {
        return [];
      }
      return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))
        .filter((e) => e.type === "prompt")
        .map((e) => ({
          text: e.text ?? e.prompt,
          internal: e.internal ?? e.KIRO_LEARN_INTERNAL ?? null,
        }));
    },
    async setScript(next) {
      await Deno.writeTextFile(script, JSON.stringify(next));
    },
  };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${options.what ?? "a condition"}`);
}
