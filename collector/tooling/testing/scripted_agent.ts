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
  /** Prompts the agent received so far, with the names of the environment variables it got. */
  prompts(): Promise<{ text: string; internal: string | null; envNames: string[] }[]>;
  /** Pids of the agent processes started so far, and of the children they started. */
  processes(): Promise<{ agents: number[]; children: number[] }>;
  /** Replaces the script; the step counter keeps counting. */
  setScript(steps: ScriptStep[]): Promise<void>;
  /** Removes the agent's temp dir (script, state, log): `await using` it. */
  [Symbol.asyncDispose](): Promise<void>;
}

const AGENT = new URL("../../daemon/llm/testdata/scripted_agent.ts", import.meta.url).pathname;

/**
 * Creates a scripted agent that plays `steps`, one per session. Its files live in a temp dir
 * that disposing it removes: declare it with `await using` before the daemon that runs it, so
 * the daemon (and with it the agent's processes) is gone first.
 */
export async function scriptedAgent(steps: ScriptStep[]): Promise<ScriptedAgent> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-agent-" });
  const script = `${dir}/script.json`;
  await Deno.writeTextFile(script, JSON.stringify(steps));
  return {
    // The paths travel as arguments too: the collector passes an agent only the environment
    // variables its settings allow.
    command: [Deno.execPath(), "run", "-A", AGENT, script, `${dir}/state`, `${dir}/log.ndjson`],
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
          envNames: e.env_names ?? [],
        }));
    },
    async processes() {
      let text = "";
      try {
        text = await Deno.readTextFile(`${dir}/log.ndjson`);
      } catch {
        return { agents: [], children: [] };
      }
      const lines = text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
      const pids = (type: string) =>
        lines.filter((e) => e.type === type).map((e) => e.pid as number);
      return { agents: pids("start"), children: pids("grandchild") };
    },
    async setScript(next) {
      await Deno.writeTextFile(script, JSON.stringify(next));
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Live (non-zombie) processes in process group `pgid`, read from /proc (Linux). A zombie counts
 * as gone: it runs nothing and holds no memory, and in a container nobody may reap it.
 */
export function liveProcessGroup(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue; // exited while we looked
    }
    // The fields after the command name (which may hold spaces): state, ppid, pgrp, ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") members.push(Number(entry.name));
  }
  return members;
}

/** True while `pid` runs (exists and is not a zombie; Linux). */
export function processLives(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
