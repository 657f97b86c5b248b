import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { startImpostor } from "@kiro-learn/core/testing";
import { processState, startStoppedProcess, startTestDaemon } from "../tooling/testing/mod.ts";
import {
  processAlive,
  provenCollector,
  readPid,
  removePidFile,
  runsDaemonOf,
} from "./_daemon_process.ts";
import { stop } from "./stop.ts";

Deno.test("readPid reads a positive integer, or null for junk and absence", async () => {
  const home = await Deno.makeTempDir();
  try {
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: home } });
    assert.equal(readPid(settings), null);
    await Deno.writeTextFile(settings.paths.pid, "1234\n");
    assert.equal(readPid(settings), 1234);
    await Deno.writeTextFile(settings.paths.pid, "-3");
    assert.equal(readPid(settings), null);
    removePidFile(settings);
    removePidFile(settings); // twice is fine
    assert.equal(readPid(settings), null);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("processAlive sends no signal: a stopped process stays stopped; a gone pid is dead", async () => {
  assert.equal(processAlive(Deno.pid), true);
  await using victim = await startStoppedProcess();
  assert.equal(processAlive(victim.pid), true);
  assert.equal(processState(victim.pid), "T", "processAlive resumed a stopped process");
  // A pid far above pid_max cannot exist.
  assert.equal(processAlive(2 ** 22 + 12345), false);
  assert.equal(processAlive(0), false);
});

Deno.test("provenCollector: only the pid file's pid, running our daemon for this data dir", async () => {
  const home = await Deno.makeTempDir();
  try {
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: home } });
    assert.equal(provenCollector(settings), null, "no pid file");
    await Deno.writeTextFile(settings.paths.pid, `${Deno.pid}\n`);
    assert.equal(provenCollector(settings), null, "a live process that is not the daemon");
    assert.equal(runsDaemonOf(Deno.pid, home), false);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
  await using daemon = await startTestDaemon();
  assert.equal(provenCollector(daemon.settings), daemon.pid());
  // The same daemon is not another data dir's collector.
  const other = await Deno.makeTempDir();
  try {
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: other } });
    await Deno.writeTextFile(settings.paths.pid, `${daemon.pid()}\n`);
    assert.equal(provenCollector(settings), null);
  } finally {
    await Deno.remove(other, { recursive: true });
  }
});

Deno.test("stop signals no pid an impostor names in /healthz (no pid file): a stopped job stays stopped", async () => {
  await using victim = await startStoppedProcess();
  await using impostor = startImpostor({ pid: victim.pid });
  const home = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${home}/settings.json`,
      JSON.stringify({ collector: { port: impostor.port } }),
    );
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: home } });
    const lines: string[] = [];
    assert.equal(await stop(settings, { print: (l) => lines.push(l) }), false);
    assert.equal(processState(victim.pid), "T", "stop resumed the process the impostor named");
    assert.match(lines.join("\n"), /nothing was signalled/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
