// The daemon as a user runs it: the real serve task, its permissions, SIGKILL under load, the CLI.
import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { LOCAL_MODULES_ONLY } from "@kiro-learn/core/launch";
import { makeEvent, probeRemoteImports } from "@kiro-learn/core/testing";
import {
  agentRunPaths,
  DAEMON_ENTRY,
  daemonArgs,
  resolveCommand,
  teamWorkerCodePaths,
  termSpaceWorkerCodePaths,
} from "./permissions/mod.ts";
import {
  freePort,
  HOLD_QUEUE_SETTINGS,
  postJson,
  probeDaemonSandbox,
  sigkillUnderLoad,
  startTestDaemon,
} from "../tooling/testing/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function waitHealthy(port: number): Promise<{ pid: number }> {
  // A hang guard, generous for a loaded machine: the poll ends as soon as it answers.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return await res.json();
      await res.body?.cancel();
    } catch {
      // Not up yet.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("daemon never became healthy");
}

Deno.test("`deno task serve` runs the daemon with exactly the promised permissions", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-serve-" });
  const port = freePort();
  const env = { KIRO_LEARN_HOME: home, KIRO_LEARN_PORT: String(port) };
  const settingsText = JSON.stringify({ extraction: { agentCommand: ["kiro-cli", "acp"] } });
  await Deno.writeTextFile(`${home}/settings.json`, settingsText);
  const task = new Deno.Command(Deno.execPath(), {
    args: ["task", "serve"],
    cwd: ROOT,
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const { pid } = await waitHealthy(port);
    const cmdline = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0");
    assert.ok(cmdline.includes(DAEMON_ENTRY), "the daemon entry runs");
    for (const broad of ["-A", "--allow-all", "--allow-read", "--allow-write", "--allow-net"]) {
      assert.ok(!cmdline.includes(broad), `${broad} is unscoped`);
    }
    assert.ok(
      cmdline.includes(
        `--allow-net=127.0.0.1:${port},unix:${home}/collector.sock,` +
          `unix:${home}/collector-tcp.sock`,
      ),
    );
    assert.ok(cmdline.includes(`--allow-write=${home}`));
    assert.ok(
      cmdline.includes(
        `--deny-write=${home}/settings.json,${home}/bin,${home}/install-manifest.json,` +
          `${home}/mcp-headers.cache,${home}/mcp-relay.cache`,
      ),
    );
    assert.ok(!cmdline.some((a) => a.startsWith("--allow-ffi")));
    // One system call only: the embedder's Workers lower their own threads.
    assert.deepEqual(cmdline.filter((a) => a.startsWith("--allow-sys")), [
      "--allow-sys=setPriority",
    ]);

    // The same flags, around a probe instead of the daemon entry.
    const settings = loadSettings({ env: { ...Deno.env.toObject(), ...env } });
    const outsideDir = await Deno.makeTempDir({ prefix: "kiro-learn-outside-" });
    const outside = `${outsideDir}/outside.txt`;
    const report = await probeDaemonSandbox(settings, { env, dataDir: home, outside });
    assert.deepEqual(report, {
      write_data_dir: "allowed",
      write_settings: "denied",
      rename_over_settings: "denied",
      remove_settings: "denied",
      write_starter: "denied",
      move_starter_dir: "denied",
      write_install_manifest: "denied",
      rename_over_install_manifest: "denied",
      write_mcp_headers_cache: "denied",
      write_mcp_relay_cache: "denied",
      write_outside: "denied",
      read_outside: "denied",
      net_non_loopback: "denied",
      listen_other_socket: "denied",
      // Permitted: it got past the check to the socket the running daemon holds.
      listen_own_socket: "error: AddrInUse",
      net_other_loopback_port: "prompt",
      run_shell: "denied",
      env_other: "denied",
      ffi: "prompt",
    });
    await assert.rejects(Deno.stat(outside), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(`${home}/settings.json`), settingsText);
    await assert.rejects(Deno.stat(`${home}/bin`), Deno.errors.NotFound);
    await Deno.remove(outsideDir, { recursive: true });
  } finally {
    task.kill("SIGTERM");
    await task.status;
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("an agent command the daemon could rewrite is never granted --allow-run", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-escalate-" });
  const elsewhere = await Deno.makeTempDir({ prefix: "kiro-learn-escalate-link-" });
  try {
    // A file in the writable data dir, and a symlink elsewhere naming it.
    const planted = `${home}/spool/agent.sh`;
    await Deno.mkdir(`${home}/spool`);
    await Deno.writeTextFile(planted, "#!/bin/sh\n", { mode: 0o755 });
    const link = `${elsewhere}/agent`;
    await Deno.symlink(planted, link);
    await Deno.writeTextFile(
      `${home}/settings.json`,
      JSON.stringify({
        extraction: { agentCommand: [planted] },
        reconciliation: { agentCommand: [link] },
        compaction: { agentCommand: ["/bin/sh"] },
      }),
    );
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: home } });
    // `kill` is always there: it ends an agent's whole process group.
    const kill = resolveCommand("kill")!;
    assert.deepEqual(
      agentRunPaths(settings),
      ["/bin/sh", kill],
      "only the command it cannot rewrite",
    );
    const run = daemonArgs(settings).filter((a) => a.startsWith("--allow-run="));
    assert.deepEqual(run, [`--allow-run=/bin/sh,${kill}`]);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("with a team, the daemon may also reach exactly the team database, and no more", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-team-flags-" });
  try {
    const flags = (team: Record<string, unknown>) => {
      Deno.writeTextFileSync(
        `${home}/settings.json`,
        JSON.stringify({ collector: { port: 4321 }, team }),
      );
      const args = daemonArgs(loadSettings({ env: { KIRO_LEARN_HOME: home } }));
      const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))!.split("=")[1];
      return {
        net: value("allow-net"),
        env: value("allow-env").split(","),
        read: value("allow-read").split(","),
        args,
      };
    };
    const alone = flags({});
    // The port, the Unix socket of the hooks' fast path, and the one the port's guard relays to.
    const own = `127.0.0.1:4321,unix:${home}/collector.sock,unix:${home}/collector-tcp.sock`;
    assert.equal(alone.net, own);
    assert.ok(!alone.env.some((v) => v.startsWith("PG")), "no PG variable without a team");
    const workerCode = teamWorkerCodePaths();
    // The term-space Worker's code is always there (it shares the core with the sync Worker).
    const termSpaceCode = termSpaceWorkerCodePaths();
    assert.ok(termSpaceCode.every((p) => alone.read.includes(p)));
    assert.ok(
      !workerCode.filter((p) => !termSpaceCode.includes(p)).some((p) => alone.read.includes(p)),
      "no sync Worker code without a team",
    );
    const joined = flags({ url: "postgres://alice@db.example.internal:6543/team" });
    assert.equal(joined.net, `${own},db.example.internal:6543`);
    assert.deepEqual(joined.env.filter((v) => v.startsWith("PG")), [
      "PGAPPNAME",
      "PGTARGETSESSIONATTRS",
    ]);
    // Its sync Worker's code, to start it (the Worker's own permissions are narrower).
    assert.ok(workerCode.every((p) => joined.read.includes(p)));
    // settings.json, which names the team database, stays out of the daemon's reach.
    assert.ok(
      joined.args.includes(
        `--deny-write=${home}/settings.json,${home}/bin,${home}/install-manifest.json,` +
          `${home}/mcp-headers.cache,${home}/mcp-relay.cache`,
      ),
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the daemon's flags refuse a remote import() before any connection", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-import-" });
  try {
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: home } });
    const argv = [Deno.execPath(), ...daemonArgs(settings)];
    for (const flag of LOCAL_MODULES_ONLY) assert.ok(argv.includes(flag), flag);
    // The control: the same permissions without the flags fetch from deno.land and friends
    // (--allow-net=127.0.0.1:PORT does not cover imports), through the proxy.
    const control = await probeRemoteImports(
      argv.filter((a) => !LOCAL_MODULES_ONLY.includes(a)),
      DAEMON_ENTRY,
    );
    assert.ok(control.connections > 0, "the probe's proxy was never used: the test proves nothing");
    const { outcome, connections } = await probeRemoteImports(argv, DAEMON_ENTRY);
    for (const [specifier, result] of Object.entries(outcome)) {
      assert.match(result, /^refused: /, specifier);
    }
    assert.equal(connections, 0, "a remote import reached the network");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("SIGKILL under concurrent load loses no acknowledged event", async () => {
  await using daemon = await startTestDaemon({ settings: HOLD_QUEUE_SETTINGS });
  const report = await sigkillUnderLoad(daemon, { clients: 8, kills: 1, runMs: 800 });
  assert.ok(report.acknowledged > 50, `only ${report.acknowledged} events acknowledged`);
  assert.deepEqual(
    { lost: report.lost, unqueued: report.unqueued, duplicated: report.duplicated },
    { lost: 0, unqueued: 0, duplicated: 0 },
  );
});

Deno.test("graceful shutdown answers in-flight requests", async () => {
  await using daemon = await startTestDaemon();
  const inflight = Array.from(
    { length: 20 },
    () =>
      postJson(daemon, "/v1/events", makeEvent()).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      }),
  );
  Deno.kill(daemon.pid(), "SIGTERM");
  const statuses = await Promise.allSettled(inflight);
  const answered = statuses.filter((s) => s.status === "fulfilled");
  for (const s of answered) assert.equal((s as PromiseFulfilledResult<number>).value, 200);
  await daemon.restart();
});

Deno.test("the daemon drains the spool on start, exactly once", async () => {
  await using daemon = await startTestDaemon();
  await daemon.kill();
  const events = [makeEvent(), makeEvent(), makeEvent()];
  await Deno.mkdir(`${daemon.dataDir}/spool`, { recursive: true });
  for (const event of events) {
    await Deno.writeTextFile(
      `${daemon.dataDir}/spool/${event.event_id}.json`,
      JSON.stringify({ event, query: "" }),
    );
  }
  await Deno.writeTextFile(`${daemon.dataDir}/spool/${makeEvent().event_id}.json`, "{torn");
  await daemon.restart();
  const stored = await (await daemon.fetch("/v1/events?limit=10")).json();
  assert.deepEqual(
    new Set(stored.items.map((e: { event_id: string }) => e.event_id)),
    new Set(events.map((e) => e.event_id)),
  );
  const left = [...Deno.readDirSync(`${daemon.dataDir}/spool`)].filter((e) => e.isFile);
  assert.deepEqual(left.map((e) => e.name), [], "drained files are removed");
  const rejected = [...Deno.readDirSync(`${daemon.dataDir}/spool/rejected`)];
  assert.equal(rejected.length, 1, "the torn file is kept aside, not deleted");
  await daemon.kill();
  await daemon.restart();
  const again = await (await daemon.fetch("/v1/events?limit=10")).json();
  assert.equal(again.total, 3);
});
