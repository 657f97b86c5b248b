/**
 * Attacks from the machine itself (issue 31): a forwarding proxy in the proxy variables, another
 * user's connection flood, a daemon that writes the install record, a `.git` file that names the
 * whole disk, an impostor naming a pid, and a fresh `DENO_DIR`. Each answers a figure like the
 * others: tries, how many held, and what the attacker got.
 *
 * @module
 */
import { mcpHeadersCommand } from "@kiro-learn/core/launch";
import { loadSettings } from "@kiro-learn/core/settings";
import {
  launcherReadGrant,
  launchersOutside,
  LINGER_PROBE,
  makeGitdirWorld,
  outsideConnections,
  startRecordingProxy,
} from "@kiro-learn/core/testing";
import { DAEMON_ENTRY, daemonArgs, daemonEnv } from "../../daemon/permissions/mod.ts";
import { fixtureText, makeProject, runShimProcess } from "@kiro-learn/shims/testing";
import {
  connectMcp,
  processState,
  processText,
  runKiroLearn,
  startFlood,
  startTestDaemon,
} from "../testing/mod.ts";
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
    const { home, project, expected, hostile } = await makeGitdirWorld(dir);
    const tries: [string, Record<string, string>][] = [
      ...hostile.map((t): [string, Record<string, string>] => [`gitdir: ${t}`, {}]),
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

/**
 * The install record names the user's own files, each "created" by install (what a process with
 * the daemon's exact flags could once write; the self-escalation probe checks it no longer can):
 * the user's next `kiro-learn uninstall`, the real command, must delete none of them.
 */
export async function forgedInstallRecord(): Promise<AttackFigure> {
  const tally = new Tally();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-attack-home-" }));
  try {
    const dataDir = `${home}/.kiro-learn`;
    const project = `${home}/proj`;
    await Deno.mkdir(`${project}/.git`, { recursive: true });
    await Deno.mkdir(dataDir, { mode: 0o700 });
    await Deno.mkdir(`${home}/.kiro/agents`, { recursive: true });
    await Deno.mkdir(`${home}/Documents`);
    const victims: Record<string, [string, string]> = {
      [`${home}/docker-config.json`]: ["kiro-chat-agent", '{"auths":{"r.example":{}}}\n'],
      [`${project}/package.json`]: ["kiro-chat-agent", '{"name":"proj"}\n'],
      [`${project}/.mcp.json`]: ["claude-mcp-project", '{"mcpServers":{"theirs":{}}}\n'],
      // The user's own agent where install would put one, "created" with a made-up hash.
      [`${home}/.kiro/agents/kiro-learn.json`]: ["kiro-chat-agent", '{"name":"mine"}\n'],
    };
    const files: Record<string, unknown> = {};
    for (const [path, [kind, text]] of Object.entries(victims)) {
      await Deno.writeTextFile(path, text);
      files[path] = { kind, created: true, keep: [], sha256: "0".repeat(64) };
    }
    await Deno.writeTextFile(
      `${dataDir}/install-manifest.json`,
      JSON.stringify({ version: 1, files, dirs: [`${home}/Documents`] }),
    );
    const out = await runKiroLearn(["uninstall"], {
      env: { HOME: home, KIRO_LEARN_HOME: dataDir },
      cwd: project,
    });
    tally.check(out.code === 0, `uninstall failed: ${processText(out)}`);
    for (const [path, [, text]] of Object.entries(victims)) {
      const now = await Deno.readTextFile(path).catch(() => null);
      tally.add(
        now === text,
        now === null ? "deleted" : now === text ? "kept" : "rewritten",
        `${path}: ${now === null ? "deleted" : "rewritten"}`,
      );
    }
    const folder = await Deno.stat(`${home}/Documents`).then(() => true, () => false);
    tally.add(folder, folder ? "kept" : "deleted", `${home}/Documents: deleted`);
    return tally.figure(
      "a forged install record, then the user's `kiro-learn uninstall`",
      "every file and folder it named untouched",
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/**
 * Another account (`nobody`, when the suite runs as root) holds three times as many idle
 * connections as the collector has descriptors (it is started with 512): the collector must
 * stay up, keep its port (an impostor could otherwise take it), and answer its owner.
 */
export async function connectionFlood(): Promise<AttackFigure> {
  const tally = new Tally();
  await using daemon = await startTestDaemon({ fileLimit: 512 });
  await using flood = await startFlood(daemon.port, { connections: 1536 });
  for (let i = 0; i < 10; i++) {
    const status = await daemon.fetch("/v1/stats").then(async (res) => {
      await res.body?.cancel();
      return res.status;
    }, () => 0);
    tally.add(
      status === 200,
      status === 200 ? "answered" : "no answer",
      `owner's request ${i}: ${status}`,
    );
  }
  let portTaken = false;
  try {
    Deno.listen({ hostname: "127.0.0.1", port: daemon.port }).close();
    portTaken = true;
  } catch {
    // In use: still the collector's.
  }
  tally.check(!portTaken, "the collector's port was free for an impostor");
  const alive = processState(daemon.pid()) !== "";
  tally.check(alive, "the collector died");
  const fds = alive ? [...Deno.readDirSync(`/proc/${daemon.pid()}/fd`)].length : 0;
  return tally.figure(
    `connection flood: ${flood.opened} idle connections from uid ${flood.uid} (collector limited to 512 descriptors)`,
    `the collector ${alive ? `held ${fds} descriptors` : "died"}, its port ${
      portTaken ? "free" : "kept"
    }`,
  );
}

/**
 * Every script kiro-learn writes that starts a `deno`, and the daemon as `start` runs it, each
 * with an empty `DENO_DIR` (a new machine, a cleared cache) and every proxy variable naming a
 * recording proxy: nothing may try to leave the machine (Deno's update check did, `CONNECT
 * dl.deno.land:443`).
 */
export async function emptyDenoDir(): Promise<AttackFigure> {
  const tally = new Tally();
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-attack-deno-dir-" });
  try {
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: `${dir}/data` } });
    const runs = await launchersOutside(settings, dir);
    const daemonArgv = daemonArgs(settings).map((a) => a === DAEMON_ENTRY ? LINGER_PROBE : a);
    runs.push({
      name: "collector daemon",
      ...await outsideConnections([Deno.execPath(), ...daemonArgv], { env: daemonEnv() }),
    });
    for (const run of runs) {
      tally.check(/lingered/.test(run.output), `${run.name} did not run: ${run.output}`);
      tally.add(
        run.requests.length === 0,
        run.requests.length === 0 ? "nothing left" : "connected outside",
        `${run.name}: ${run.requests.join(", ")}`,
      );
    }
    const out = runs.reduce((n, r) => n + r.requests.length, 0);
    return tally.figure(
      "an empty DENO_DIR under proxy variables (every launcher, the starter, the daemon)",
      `${out} connections left the machine`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
