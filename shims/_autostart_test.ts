import assert from "node:assert/strict";
import { writeStarter } from "@kiro-learn/core/launch";
import { collectorBaseUrl, ROUTES } from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import { SETTINGS_SPEC } from "@kiro-learn/core/settings";
import { makeRecord } from "@kiro-learn/core/testing";
import { commandLine, freePort, processesWithEnv, waitFor } from "@kiro-learn/collector/testing";
import { startCollectorDetached } from "./_autostart.ts";
import { fixtureText, makeDataDir, makeProject, runShimProcess, TEST_ACTOR } from "./testing.ts";

Deno.test("startCollectorDetached: no starter is reported, never thrown", () => {
  const outcome = startCollectorDetached("/nonexistent/bin/start-collector");
  assert.equal(outcome.status, "missing");
  if (outcome.status === "missing") assert.match(outcome.message, /kiro-learn install/);
});

Deno.test("startCollectorDetached runs the starter and returns without waiting for it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const starter = `${dir}/start-collector`;
    // The starter finishes only once the test opens the gate: "returned without waiting" is
    // then an ordering the test controls, not a race against a sleep on a loaded machine.
    await Deno.writeTextFile(
      starter,
      // (It also ends once the folder is gone, so a failed test leaves no process behind.)
      `#!/bin/sh\nwhile [ -d '${dir}' ] && [ ! -e '${dir}/gate' ]; do sleep 0.05; done\n` +
        `touch '${dir}/ran'\n`,
      { mode: 0o700 },
    );
    assert.deepEqual(startCollectorDetached(starter), { status: "started" });
    // Returned while the script still waits at the gate: the marker is not there yet, then it comes.
    assert.equal(exists(`${dir}/ran`), false);
    await Deno.writeTextFile(`${dir}/gate`, "");
    await waitUntil(() => exists(`${dir}/ran`), "the starter to run");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 100 ms; a hang guard (60 s), not a timing assertion. */
function waitUntil(check: () => boolean | Promise<boolean>, what: string): Promise<true> {
  return waitFor(async () => (await check()) || undefined, { timeoutMs: 60_000, what });
}

/** Pids of processes of this data dir whose command line names `needle`. */
function processesOf(needle: string, dataDir: string): number[] {
  return processesWithEnv("KIRO_LEARN_HOME", dataDir)
    .filter((pid) => commandLine(pid).split(" ").some((arg) => arg.endsWith(needle)));
}

const DAEMON = "collector/daemon/main.ts";
const SHIM_TIMEOUT_MAX_MS = SETTINGS_SPEC.shim.timeoutMs.max;
const CLI = "collector/main.ts";

async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(collectorBaseUrl("127.0.0.1", port) + ROUTES.health);
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

Deno.test("a hook starts a collector that is down; the next prompt gets memory; two hooks start one collector", async () => {
  const port = freePort();
  // A hook that started the collector waits for it within its own budget (twice
  // `shim.timeoutMs`). With the default 2 s, a collector that takes longer than 4 s to come up
  // (a loaded machine: load 10+ on two cores) is a spooled event, not a failure of the product,
  // but it would fail this test: so the test sets the budget to the largest allowed, and the
  // wait ends as soon as the collector answers.
  const data = await makeDataDir(
    { collector: { port }, shim: { timeoutMs: SHIM_TIMEOUT_MAX_MS } },
    { token: null },
  );
  const project = await makeProject();
  const hook = (name: string, stdin = fixtureText(`claude_code/${name}`, project)) =>
    runShimProcess("claude-code", {
      settings: data.settings,
      env: data.env,
      cwd: project,
      stdin,
      // Past the hook's own watchdog (stdin + 2 × timeoutMs + 1 s): only a hang is killed.
      killAfterMs: 3 * SHIM_TIMEOUT_MAX_MS,
    });
  // A session start that prints (after /clear): at startup the hook only stores, and the first
  // prompt carries the session-start block.
  const cleared = fixtureText("claude_code/session_start.json", project)
    .replace('"source": "startup"', '"source": "clear"');
  assert.match(cleared, /"source": "clear"/);
  const stopCollector = async () => {
    for (const pid of processesOf(DAEMON, data.dir)) Deno.kill(pid, "SIGTERM");
    await waitUntil(() => processesOf(DAEMON, data.dir).length === 0, "the collector to stop");
  };
  try {
    // Without a starter the session start says, in the agent's context, what to run.
    const bare = await hook("session_start.json", cleared);
    assert.equal(bare.code, 0);
    assert.match(bare.stdout, /no project memory this session.*kiro-learn start/);
    // Once per session: the same session's prompts (each asks for the start block) stay quiet.
    const again = await hook("user_prompt_submit.json");
    assert.equal(again.code, 0);
    assert.equal(again.stdout, "", "the session was told once already");

    writeStarter(data.settings.paths.starter, { dataDir: data.dir });
    const start = await hook("session_start.json", cleared);
    assert.equal(start.code, 0);
    assert.equal(
      start.stdout,
      "",
      "a collector being started needs no warning (and has no memory)",
    );
    assert.match(start.stderr, /not set up yet.*started it/);
    await waitUntil(() => healthy(port), "the hook-started collector");

    // The started collector drained the spool (the first session start) and serves memory.
    const token = Deno.readTextFileSync(data.settings.paths.token).trim();
    const namespace = resolveProject(project, { actor: TEST_ACTOR }).namespace;
    const saved = await fetch(collectorBaseUrl("127.0.0.1", port) + ROUTES.memories, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(makeRecord({
        namespace,
        title: "Leap-year date parser fix",
        summary: "The date parser test fails on leap years because February has 29 days.",
      })),
    });
    assert.ok(saved.ok, await saved.text());
    const prompt = await hook("user_prompt_submit.json");
    assert.equal(prompt.code, 0);
    assert.match(prompt.stdout, /Leap-year date parser fix/);
    await waitUntil(async () => {
      const res = await fetch(`${collectorBaseUrl("127.0.0.1", port)}${ROUTES.events}?limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await res.json();
      return body.items?.length >= 3;
    }, "the spooled session starts to be drained");

    // As after a reboot: the first hook of the first session starts it, waits for it (within
    // its budget), and the session starts with its memory.
    await stopCollector();
    const reboot = await hook("session_start.json", cleared);
    assert.equal(reboot.code, 0);
    assert.match(reboot.stdout, /Leap-year date parser fix/, reboot.stderr);
    assert.match(reboot.stderr, /not reachable.*started it/);

    // Stopped again: two hooks at once start exactly one collector.
    await stopCollector();
    const both = await Promise.all([hook("user_prompt_submit.json"), hook("stop.json")]);
    assert.deepEqual(both.map((r) => r.code), [0, 0]);
    await waitUntil(() => healthy(port), "the collector started by two hooks");
    await waitUntil(() => processesOf(CLI, data.dir).length === 0, "both starters to finish");
    assert.deepEqual(processesOf(DAEMON, data.dir).map(() => "collector"), ["collector"]);
  } finally {
    await stopCollector().catch(() => {});
    await Deno.remove(data.dir, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});
