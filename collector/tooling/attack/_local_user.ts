/**
 * Attacks from the machine itself (issue 31): a forwarding proxy in the proxy variables, another
 * user's connection flood, a daemon that writes the install record, a `.git` file that names the
 * whole disk, an impostor naming a pid, and a fresh `DENO_DIR`. Each answers a figure like the
 * others: tries, how many held, and what the attacker got.
 *
 * @module
 */
import { mcpHeadersCommand } from "@kiro-learn/core/launch";
import { startRecordingProxy } from "@kiro-learn/core/testing";
import { fixtureText, makeProject, runShimProcess } from "@kiro-learn/shims/testing";
import { connectMcp, processText, runKiroLearn, startTestDaemon } from "../testing/mod.ts";
import { type AttackFigure, Tally } from "./_figure.ts";

/**
 * Every client of ours (the CLI, the MCP stdio server, a hook, the MCP headers helper) runs with
 * every proxy variable naming a forwarding proxy: none may send it anything (a forwarding proxy
 * would relay the hello to the real collector, so the proof does not help), and each must still
 * reach the collector.
 */
export async function proxyVariables(): Promise<AttackFigure> {
  const tally = new Tally();
  await using daemon = await startTestDaemon();
  await using proxy = startRecordingProxy({ forward: true });
  const project = await makeProject();
  const env = { ...daemon.env, ...proxy.env };
  try {
    const client = async (name: string, run: () => Promise<boolean>) => {
      const before = proxy.seen.length;
      const worked = await run();
      const through = proxy.seen.length - before;
      tally.add(
        through === 0,
        through === 0 ? "direct" : "through the proxy",
        `${name}: ${
          proxy.seen.slice(before).map((r) =>
            `${r.line}${r.authorization ? " (with the token)" : ""}`
          ).join(", ")
        } went through the proxy`,
      );
      tally.check(worked, `${name} did not reach the collector`);
    };
    for (const args of [["status"], ["search", "leap", "years"]]) {
      await client(`kiro-learn ${args[0]}`, async () => {
        const out = await runKiroLearn(args, { env, cwd: project });
        return out.code === 0 && !/not running|impostor/i.test(processText(out));
      });
    }
    {
      await using mcp = await connectMcp({ port: daemon.port, env, cwd: project });
      for (
        const [name, args] of [
          ["search_memory", { query: "leap years" }],
          ["save_observation", { title: "proxy", summary: "s", observation_type: "decision" }],
        ] as const
      ) {
        await client(`MCP ${name}`, async () => !(await mcp.call(name, args)).isError);
      }
    }
    await client("hook UserPromptSubmit", async () => {
      const before = (await (await daemon.fetch("/v1/stats")).json()).total_events;
      await runShimProcess("claude-code", {
        settings: daemon.settings,
        env,
        cwd: project,
        stdin: fixtureText("claude_code/user_prompt_submit.json", project),
      });
      return (await (await daemon.fetch("/v1/stats")).json()).total_events > before;
    });
    await client("MCP headers helper", async () => {
      const [command, ...args] = mcpHeadersCommand(daemon.settings);
      const out = await new Deno.Command(command, {
        args: [...args, `--agent-cwd=${project}`],
        env,
        cwd: project,
      }).output();
      return new TextDecoder().decode(out.stdout).includes(`Bearer ${daemon.token}`);
    });
    return tally.figure(
      "proxy variables name a forwarding proxy (2 CLI commands, 2 MCP tools, a hook, the MCP headers helper)",
      `the proxy got ${proxy.seen.length} connections`,
    );
  } finally {
    await Deno.remove(project, { recursive: true });
  }
}
