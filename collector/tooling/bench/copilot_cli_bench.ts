/**
 * Copilot CLI overhead benchmark: what kiro-learn's hooks and MCP entry add to a real session, as
 * a user pays it. Times whole `copilot -p` runs of the real client (the version `prepare.ts` pins
 * and installs), offline against the scripted Anthropic Messages model on loopback (a BYOK
 * provider), each session one prompt, one shell call (`echo hi`) and an answer. Setups, each in a
 * HOME of its own with kiro-learn installed by `kiro-learn install` and a running collector (its
 * hooks fire at userPromptSubmitted, postToolUse and agentStop):
 *
 * - without kiro-learn;
 * - the default install (hooks, and the local MCP entry Copilot CLI starts per session: the sh
 *   relay to the collector's MCP route);
 * - the hooks alone (the default install minus its MCP entry);
 * - the MCP entry alone (the default install minus its hook file).
 *
 * Runs rotate among them (`agent_bench.ts`, shared with the Claude Code, Codex and Gemini CLI
 * benchmarks), and each setup's paired median over the setup without kiro-learn is its cost.
 *
 * Not part of the default `deno task bench` run (it needs the client): run it with
 * `deno task bench copilot-cli`, or `deno run -A collector/tooling/bench/copilot_cli_bench.ts
 * [--quick] [--runs=N] [--hogs=N] [--out=<path>]`. Figures go to stdout and to
 * `.bench/copilot-cli.json` (`copilot-cli-hogs<N>.json` with `--hogs=N`).
 *
 * @module
 */
import {
  COPILOT_CLI_VERSION,
  type CopilotSandbox,
  copilotSandbox,
  startScriptedModel,
  toolThenText,
} from "../testing/mod.ts";
import {
  type AgentBenchOptions,
  agentSetups,
  benchClient,
  benchMain,
  removeJsonMcpEntry,
  type SetupSpec,
} from "./agent_bench.ts";

const ANSWER = "It printed hi.";
const PREFIX = "copilot-cli";
/** A dummy key: the scripted model takes any. */
const API_KEY = "sk-ant-scripted-bench";

/** The setups, the one without kiro-learn first (see the module's documentation). */
export const COPILOT_SETUPS: readonly SetupSpec<CopilotSandbox>[] = agentSetups<CopilotSandbox>({
  mcpEntry: (box) => removeJsonMcpEntry(`${box.home}/.copilot/mcp-config.json`),
  hooks: (box) => Deno.remove(`${box.home}/.copilot/hooks/kiro-learn.json`),
}, { mcp: "local MCP" });

/** Runs the benchmark; returns its figures. */
export async function benchCopilotCli(
  options: AgentBenchOptions,
): Promise<Record<string, unknown>> {
  await using model = startScriptedModel(
    toolThenText({ name: "bash", input: { command: "echo hi", description: "echo" } }, ANSWER),
  );
  return await benchClient({
    prefix: PREFIX,
    specs: COPILOT_SETUPS,
    sandbox: () => copilotSandbox(),
    requests: model.requests,
    async run(setup) {
      const run = await setup.box.copilot("Run echo hi and tell me what it printed", {
        cwd: setup.cwd,
        modelUrl: model.url,
        apiKey: API_KEY,
      });
      return run.code === 0 && run.stdout.includes(ANSWER)
        ? null
        : `exit ${run.code}: ${run.stdout}${run.stderr.slice(-3000)}`;
    },
    about: {
      session: "copilot -p, one prompt, one shell call (echo hi), one answer; scripted model",
      copilot_cli: COPILOT_CLI_VERSION,
    },
  }, options);
}

if (import.meta.main) await benchMain(PREFIX, Deno.args, benchCopilotCli);
