/**
 * Gemini CLI overhead benchmark: what kiro-learn's hooks and MCP entry add to a real session, as
 * a user pays it. Times whole `gemini -p` runs of the real client (the version `prepare.ts` pins
 * and installs), offline against the scripted Gemini API on loopback, each session one prompt,
 * one shell call (`echo hi`) and an answer. Setups, each in a HOME of its own with kiro-learn
 * installed by `kiro-learn install` and a running collector (its hooks fire at BeforeAgent,
 * AfterTool and AfterAgent):
 *
 * - without kiro-learn;
 * - the default install (hooks, and the stdio MCP entry Gemini CLI starts per session: the sh
 *   relay to the collector's MCP route);
 * - the hooks alone (the default install minus its MCP entry);
 * - the MCP entry alone (the default install minus its hooks).
 *
 * Runs rotate among them (`agent_bench.ts`, shared with the Claude Code and Codex benchmarks),
 * and each setup's paired median over the setup without kiro-learn is its cost.
 *
 * Not part of the default `deno task bench` run (it needs the client): run it with
 * `deno task bench gemini-cli`, or `deno run -A collector/tooling/bench/gemini_cli_bench.ts
 * [--quick] [--runs=N] [--hogs=N] [--out=<path>]`. Figures go to stdout and to
 * `.bench/gemini-cli.json` (`gemini-cli-hogs<N>.json` with `--hogs=N`).
 *
 * @module
 */
import {
  GEMINI_CLI_VERSION,
  type GeminiSandbox,
  geminiSandbox,
  geminiToolsThenText,
  startScriptedGeminiModel,
} from "../testing/mod.ts";
import {
  type AgentBenchOptions,
  agentSetups,
  benchClient,
  benchMain,
  removeJsonHooks,
  removeJsonMcpEntry,
  type SetupSpec,
} from "./agent_bench.ts";

const ANSWER = "It printed hi.";
const PREFIX = "gemini-cli";
/** A dummy key: the scripted model takes any. */
const API_KEY = "scripted-gemini-key";

/** The setups, the one without kiro-learn first (see the module's documentation). */
export const GEMINI_SETUPS: readonly SetupSpec<GeminiSandbox>[] = agentSetups<GeminiSandbox>({
  // The user's `~/.gemini/settings.json` holds both.
  mcpEntry: (box) => removeJsonMcpEntry(`${box.home}/.gemini/settings.json`),
  hooks: (box) => removeJsonHooks(`${box.home}/.gemini/settings.json`),
}, { mcp: "stdio MCP" });

/** Runs the benchmark; returns its figures. */
export async function benchGeminiCli(
  options: AgentBenchOptions,
): Promise<Record<string, unknown>> {
  await using model = startScriptedGeminiModel(
    geminiToolsThenText([{ name: "run_shell_command", args: { command: "echo hi" } }], ANSWER),
  );
  return await benchClient({
    prefix: PREFIX,
    specs: GEMINI_SETUPS,
    sandbox: () => geminiSandbox(),
    requests: model.requests,
    async run(setup) {
      const run = await setup.box.gemini("Run echo hi and tell me what it printed", {
        cwd: setup.cwd,
        modelUrl: model.url,
        apiKey: API_KEY,
      });
      return run.code === 0 && run.response === ANSWER
        ? null
        : `exit ${run.code}: ${run.stdout}${run.stderr.slice(-3000)}`;
    },
    about: {
      session: "gemini -p, one prompt, one shell call (echo hi), one answer; scripted model",
      gemini_cli: GEMINI_CLI_VERSION,
    },
  }, options);
}

if (import.meta.main) await benchMain("gemini-cli", Deno.args, benchGeminiCli);
