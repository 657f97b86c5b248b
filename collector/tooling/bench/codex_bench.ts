/**
 * Codex CLI overhead benchmark: what kiro-learn's hooks and MCP entry add to a real session, as a
 * user pays it. Times whole `codex exec` runs of the real client (the version `prepare.ts` pins
 * and installs), offline against the scripted Responses model on loopback, each session one
 * prompt, one shell call (`echo hi`) and an answer. Setups, each in a HOME of its own with
 * kiro-learn installed by `kiro-learn install` and a running collector (two hooks fire per
 * session: UserPromptSubmit and Stop):
 *
 * - without kiro-learn;
 * - the default install (the MCP tools served by the collector over HTTP, its headers helper
 *   run once per session);
 * - `install --mcp stdio` (the stdio MCP server Codex starts per session);
 * - the hooks alone (the default install minus its MCP entry);
 * - the MCP entry alone (the default install minus its hooks).
 *
 * Runs rotate among them (`agent_bench.ts`, shared with the Claude Code and Gemini CLI
 * benchmarks), and each setup's paired median over the setup without kiro-learn is its cost.
 *
 * Not part of the default `deno task bench` run (it needs the client): run it with
 * `deno task bench codex`, or `deno run -A collector/tooling/bench/codex_bench.ts [--quick]
 * [--runs=N] [--hogs=N] [--out=<path>]`. Figures go to stdout and to `.bench/codex.json`
 * (`codex-hogs<N>.json` with `--hogs=N`).
 *
 * @module
 */
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import {
  callsThenText,
  type ClaudeSandbox,
  claudeSandbox,
  CODEX_VERSION,
  startScriptedResponsesModel,
} from "../testing/mod.ts";
import {
  type AgentBenchOptions,
  agentSetups,
  benchClient,
  benchMain,
  type SetupSpec,
} from "./agent_bench.ts";

const ANSWER = "It printed hi.";
const PREFIX = "codex";

/** `config.toml` without our `[mcp_servers.…]` table (install writes it in a table of its own). */
export function withoutMcpTable(text: string): string {
  const header = `[mcp_servers.${MCP_SERVER_NAME}]`;
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.trim() === header);
  if (at < 0) throw new Error(`install wrote no ${header} table into config.toml:\n${text}`);
  let end = at + 1;
  while (end < lines.length && !lines[end].trimStart().startsWith("[")) end++;
  return [...lines.slice(0, at), ...lines.slice(end)].join("\n");
}

/** The setups, the one without kiro-learn first (see the module's documentation). */
export const CODEX_SETUPS: readonly SetupSpec<ClaudeSandbox>[] = agentSetups<ClaudeSandbox>({
  async mcpEntry(box) {
    const path = `${box.home}/.codex/config.toml`;
    await Deno.writeTextFile(path, withoutMcpTable(await Deno.readTextFile(path)));
  },
  hooks: (box) => Deno.remove(`${box.home}/.codex/hooks.json`),
}, { mcp: "HTTP MCP", stdio: true });

/** Runs the benchmark; returns its figures. */
export async function benchCodex(options: AgentBenchOptions): Promise<Record<string, unknown>> {
  await using model = startScriptedResponsesModel(
    callsThenText([{ type: "call", name: "exec_command", arguments: { cmd: "echo hi" } }], ANSWER),
  );
  return await benchClient({
    prefix: PREFIX,
    specs: CODEX_SETUPS,
    sandbox: () => claudeSandbox(),
    requests: model.requests,
    async run(setup) {
      const run = await setup.box.codex("Run echo hi and tell me what it printed", {
        cwd: setup.cwd,
        modelUrl: model.url,
      });
      return run.code === 0 && run.stdout.trim() === ANSWER
        ? null
        : `exit ${run.code}: ${run.stdout}${run.stderr.slice(-3000)}`;
    },
    about: {
      session: "codex exec, one prompt, one shell call (echo hi), one answer; scripted model",
      codex: CODEX_VERSION,
    },
  }, options);
}

if (import.meta.main) await benchMain("codex", Deno.args, benchCodex);
