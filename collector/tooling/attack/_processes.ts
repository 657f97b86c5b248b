/**
 * Attacks that take real processes: an impostor on the collector's port against the hooks, the
 * CLI and the MCP server; the self-escalation probe with the collector's exact flags; and
 * SIGKILL under concurrent clients.
 *
 * @module
 */
import { IMPOSTOR_INSTRUCTION, startImpostor } from "@kiro-learn/core/testing";
import { loadSettings } from "@kiro-learn/core/settings";
import { settlesWithin } from "@kiro-learn/core/settle";
import { fixtureText, makeDataDir, makeProject, runShimProcess } from "@kiro-learn/shims/testing";
import {
  connectMcp,
  HOLD_QUEUE_SETTINGS,
  probeDaemonSandbox,
  processState,
  processText,
  runKiroLearn,
  sigkillUnderLoad,
  startStoppedProcess,
  startTestDaemon,
} from "../testing/mod.ts";
import { type AttackFigure, Tally } from "./_figure.ts";

/**
 * While the collector is down, a listener takes its port. Every client that would talk to the
 * collector is run against it: each must send it no token and no event, show nothing it says,
 * and `stop` must not signal the pid it names (a stopped job of the user's: a SIGCONT resumes it).
 */
export async function impostorOnThePort(): Promise<AttackFigure> {
  const tally = new Tally();
  // A stopped job of the user's: a SIGCONT (what a liveness probe once sent) would resume it.
  await using victim = await startStoppedProcess();
  await using impostor = startImpostor({ pid: victim.pid });
  const token = "attack-token-0123456789abcdef";
  const data = await makeDataDir(
    { collector: { host: "127.0.0.1", port: impostor.port } },
    { token },
  );
  const project = await makeProject();
  const shown: [string, string][] = [];
  try {
    for (
      const fixture of [
        "user_prompt_submit.json",
        "session_start.json",
        "post_tool_use_bash.json",
        "stop.json",
      ]
    ) {
      const run = await runShimProcess("claude-code", {
        settings: data.settings,
        env: data.env,
        cwd: project,
        stdin: fixtureText(`claude_code/${fixture}`, project),
      });
      shown.push([`hook ${fixture}`, run.stdout + run.stderr]);
    }
    for (const args of [["status"], ["search", "leap", "years"], ["stop"]]) {
      const out = await runKiroLearn(args, { env: data.env });
      shown.push([`kiro-learn ${args[0]}`, processText(out)]);
    }
    {
      await using mcp = await connectMcp({ port: impostor.port, env: data.env, cwd: project });
      for (
        const [name, args] of [
          ["search_memory", { query: "leap years" }],
          ["recent_activity", {}],
          ["save_observation", { title: "t", summary: "s", observation_type: "decision" }],
        ] as const
      ) {
        const reply = await mcp.call(name, args);
        shown.push([`MCP ${name}`, reply.text]);
      }
    }
    for (const [client, text] of shown) {
      tally.add(!text.includes(IMPOSTOR_INSTRUCTION), "nothing shown", `${client} showed it`);
    }
    const exited = await settlesWithin(victim.status, 300);
    const resumed = processState(victim.pid) !== "T";
    tally.check(!exited && !resumed, "stop signalled the pid the impostor named");
    const withToken = impostor.seen.filter((r) =>
      r.auth !== null || r.path.includes(token) || r.body.includes(token)
    );
    const withBody = impostor.seen.filter((r) => r.body !== "");
    tally.check(withToken.length === 0, `the token went to ${withToken.map((r) => r.path)}`);
    tally.check(withBody.length === 0, `bodies went to ${withBody.map((r) => r.path)}`);
    tally.check(
      impostor.seen.length > 0,
      "no client reached the impostor: the attack proves nothing",
    );
    return tally.figure(
      "impostor on the port (4 hooks, 3 CLI commands, 3 MCP tools)",
      `it got ${impostor.seen.length} requests: ${withToken.length} with the token, ` +
        `${withBody.length} with a body; stop signalled ${
          exited || resumed ? "its pid" : "nothing"
        }`,
    );
  } finally {
    await Deno.remove(data.dir, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

/** What the probe must be refused: everything that would widen the next start's sandbox. */
const ESCALATIONS = [
  "write_settings",
  "rename_over_settings",
  "remove_settings",
  "write_starter",
  "move_starter_dir",
  "write_install_manifest",
  "rename_over_install_manifest",
  "write_mcp_headers_cache",
  "write_mcp_relay_cache",
  "write_outside",
  "read_outside",
  "net_non_loopback",
  "run_shell",
  "env_other",
];

/** A probe with the collector's exact flags tries to widen its own sandbox. */
export async function selfEscalation(): Promise<AttackFigure> {
  const tally = new Tally();
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-attack-escalate-" });
  const outsideDir = await Deno.makeTempDir({ prefix: "kiro-learn-attack-outside-" });
  try {
    const settingsText = JSON.stringify({ extraction: { agentCommand: ["kiro-cli", "acp"] } });
    await Deno.writeTextFile(`${home}/settings.json`, settingsText);
    const env = { KIRO_LEARN_HOME: home };
    const settings = loadSettings({ env: { ...Deno.env.toObject(), ...env } });
    const outside = `${outsideDir}/outside.txt`;
    const report = await probeDaemonSandbox(settings, { env, dataDir: home, outside });
    for (const action of ESCALATIONS) {
      const outcome = report[action] ?? "not probed";
      tally.add(outcome === "denied", outcome, `${action}: ${outcome}`);
    }
    tally.check(
      await Deno.readTextFile(`${home}/settings.json`) === settingsText,
      "settings.json changed",
    );
    tally.check(
      await Deno.stat(outside).then(() => false, () => true),
      "a file was written outside the data dir",
    );
    return tally.figure(
      "self-escalation probe (the collector's exact flags)",
      "settings.json, bin/, the install record and the headers cache unchanged",
    );
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(outsideDir, { recursive: true });
  }
}

/** SIGKILLs under 8 concurrent clients: nothing acknowledged is lost or duplicated. */
export async function sigkillUnderClients(): Promise<AttackFigure> {
  const tally = new Tally();
  await using daemon = await startTestDaemon({ settings: HOLD_QUEUE_SETTINGS });
  const report = await sigkillUnderLoad(daemon, { clients: 8, kills: 3, runMs: 700 });
  tally.check(report.acknowledged > 100, `only ${report.acknowledged} events acknowledged`);
  for (let i = 0; i < report.kills; i++) {
    tally.add(true, "SIGKILL");
  }
  tally.check(report.lost === 0, `${report.lost} acknowledged events lost`);
  tally.check(report.unqueued === 0, `${report.unqueued} acknowledged events not queued`);
  tally.check(report.duplicated === 0, `${report.duplicated} events queued twice`);
  return tally.figure(
    "SIGKILL under 8 concurrent clients",
    `${report.acknowledged} acknowledged events: ${report.lost} lost, ${report.unqueued} unqueued, ` +
      `${report.duplicated} duplicated`,
  );
}
