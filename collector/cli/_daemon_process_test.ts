import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { isOurDaemon, processAlive, readPid, removePidFile } from "./_daemon_process.ts";

Deno.test("readPid reads a positive integer, or null for junk and absence", async () => {
  const home = await Deno.makeTempDir();
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: home } });
  assert.equal(readPid(settings), null);
  await Deno.mkdir(home, { recursive: true });
  await Deno.writeTextFile(settings.paths.pid, "1234\n");
  assert.equal(readPid(settings), 1234);
  await Deno.writeTextFile(settings.paths.pid, "-3");
  assert.equal(readPid(settings), null);
  removePidFile(settings);
  removePidFile(settings); // twice is fine
  assert.equal(readPid(settings), null);
});

Deno.test("processAlive and isOurDaemon: this test process is alive but not the daemon", () => {
  assert.equal(processAlive(Deno.pid), true);
  assert.equal(isOurDaemon(Deno.pid), false);
  // A pid far above pid_max cannot exist.
  assert.equal(processAlive(2 ** 22 + 12345), false);
});
