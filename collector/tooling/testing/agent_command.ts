/**
 * Test helper: a scripted agent's command with its environment baked in, so one collector can
 * run two scripted agents (compressor and judge) that read different scripts.
 *
 * @module
 */
import type { ScriptedAgent } from "./scripted_agent.ts";

/** `env VAR=value ... <agent command>`: the agent finds its own script whatever its parent's env. */
export function agentCommand(agent: Pick<ScriptedAgent, "command" | "env">): string[] {
  return ["env", ...Object.entries(agent.env).map(([k, v]) => `${k}=${v}`), ...agent.command];
}
