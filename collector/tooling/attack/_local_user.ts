/**
 * Attacks from the machine itself (issue 31): a forwarding proxy in the proxy variables, another
 * user's connection flood, a daemon that writes the install record, a `.git` file that names the
 * whole disk, an impostor naming a pid, and a fresh `DENO_DIR`. Each answers a figure like the
 * others: tries, how many held, and what the attacker got.
 *
 * @module
 */
import { mcpHeadersCommand } from "@kiro-learn/core/launch";
import { launcherReadGrant, startRecordingProxy } from "@kiro-learn/core/testing";
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

/**
 * A repository's `.git` file names the whole disk, spelled every way (or a folder that is no git
 * dir): the hook launchers must grant their shim no read root but the data dir, `$HOME` and the
 * project, each canonical. (Claude Code's config folder too, spelled as `/`.)
 */
export async function gitFileWidening(): Promise<AttackFigure> {
  const tally = new Tally();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-attack-gitdir-" }));
  try {
    const home = `${dir}/home`;
    await Deno.mkdir(`${home}/.kiro-learn`, { recursive: true });
    const project = `${dir}/srv/app`;
    await Deno.mkdir(`${project}/src`, { recursive: true });
    await Deno.symlink("/", `${dir}/disk.git`);
    const expected = [`${home}/.kiro-learn`, home, project];
    const tries: [string, Record<string, string>][] = [
      ...["/", "/.", "//", "/etc/..", "/etc", "../../../../../../../../..", `${dir}/disk.git`]
        .map((t): [string, Record<string, string>] => [`gitdir: ${t}`, {}]),
      ...["//", "/etc/.."].map((c): [string, Record<string, string>] => [
        `CLAUDE_CONFIG_DIR=${c}`,
        { CLAUDE_CONFIG_DIR: c },
      ]),
    ];
    for (const [what, env] of tries) {
      if (what.startsWith("gitdir: ")) await Deno.writeTextFile(`${project}/.git`, `${what}\n`);
      else {
        await Deno.remove(`${project}/.git`).catch(() => {});
        await Deno.mkdir(`${project}/.git`);
      }
      for (const surface of ["kiro-cli", "claude-code"] as const) {
        const read = await launcherReadGrant(surface, { home, cwd: `${project}/src`, env });
        const extra = read.filter((r) => !expected.includes(r));
        tally.add(
          extra.length === 0,
          extra.length === 0 ? "data dir, $HOME, project" : "widened",
          `${surface}, ${what}: --allow-read also had ${extra.join(",")}`,
        );
      }
    }
    return tally.figure(
      "a .git file or CLAUDE_CONFIG_DIR names the whole disk (hook launchers' read grant)",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
