/**
 * Test helper: a sandbox's shell as a user has it after the install page's first step,
 * `kiro-learn link` (its launcher in `~/.local/bin`, put on PATH), so the journey tests run a
 * docs page's marked blocks with `sh -e` exactly as written.
 *
 * @module
 */
import { REPO_ROOT } from "@kiro-learn/core/launch";
import { type AgentSandbox, outputText } from "./claude_client.ts";

/** A sandbox's shell with the `kiro-learn` launcher on PATH. */
export interface LinkedShell {
  /** The launcher's folder (`<home>/.local/bin`). */
  bin: string;
  /** The sandbox's environment with {@linkcode LinkedShell.bin} first on PATH. */
  env: Record<string, string>;
  /** Runs `script` with `sh -e` in `cwd`: the first command that fails ends it, non-zero. */
  sh(script: string, cwd: string): Promise<Deno.CommandOutput>;
  /** Runs `kiro-learn <args>` in `cwd`, the command found on PATH. */
  kiroLearn(args: string[], cwd: string): Promise<Deno.CommandOutput>;
}

/**
 * Runs `link` in `box` from the checkout, as docs/install.md says; throws with its output when it
 * fails or writes the launcher elsewhere.
 */
export async function linkedShell(box: AgentSandbox): Promise<LinkedShell> {
  const linked = await box.kiroLearn(["link"], REPO_ROOT);
  const bin = `${box.home}/.local/bin`;
  if (linked.code !== 0 || !outputText(linked).includes(`wrote ${bin}/kiro-learn`)) {
    throw new Error(`kiro-learn link did not write ${bin}/kiro-learn: ${outputText(linked)}`);
  }
  const env = { ...box.env, PATH: `${bin}:${box.env.PATH}` };
  const run = (command: string, args: string[], cwd: string) =>
    new Deno.Command(command, { args, cwd, env, clearEnv: true, stdin: "null" }).output();
  return {
    bin,
    env,
    sh: (script, cwd) => run("sh", ["-e", "-c", script], cwd),
    kiroLearn: (args, cwd) => run("kiro-learn", args, cwd),
  };
}
