import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { compileArgs, isRuntimeDownloadFailure, NO_DENORT_MESSAGE, summarize } from "./compile.ts";
import {
  SHIM_ENTRIES,
  shimEntryPath,
  type ShimSurface,
  WORKSPACE_CONFIG,
} from "@kiro-learn/core/launch";

const settings = loadSettings({ env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn" } });

Deno.test("compileArgs bakes the shim's permissions into each binary (pure, no download)", () => {
  for (const surface of Object.keys(SHIM_ENTRIES) as ShimSurface[]) {
    const args = compileArgs(surface, { settings, home: "/home/ada", outDir: "/out/" });
    assert.deepEqual(args.slice(0, 3), ["compile", "--config", WORKSPACE_CONFIG]);
    assert.deepEqual(args.slice(-3), [
      "--output",
      `/out/${SHIM_ENTRIES[surface].bin}`,
      shimEntryPath(surface),
    ]);
    assert.ok(args.includes("--allow-net=127.0.0.1:21100"));
    assert.ok(args.includes("--allow-write=/home/ada/.kiro-learn/spool"));
    assert.ok(args.includes("--allow-read=/home/ada/.kiro-learn,/home/ada"));
    assert.ok(args.includes("--no-prompt"));
    assert.ok(!args.includes("-A"));
  }
});

Deno.test("a blocked denort download is recognised and explained", () => {
  const stderr = [
    "Compile shims/kiro_cli.ts to shims/bin/kiro_cli",
    "Download https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip",
    "error: Writing deno compile executable to temporary file 'shims/bin/kiro_cli.tmp'",
    "",
    "Caused by:",
    "    0: Setting up base binary.",
    "    4: failed to lookup address information: Name or service not known",
    "",
    "Stack backtrace:",
    "   0: <unknown>",
  ].join("\n");
  assert.ok(isRuntimeDownloadFailure(stderr));
  assert.equal(
    summarize(stderr),
    "error: Writing deno compile executable to temporary file 'shims/bin/kiro_cli.tmp' " +
      "(failed to lookup address information: Name or service not known)",
  );
  assert.ok(!isRuntimeDownloadFailure("error: Module not found"));
  assert.match(NO_DENORT_MESSAGE, /denort/);
  assert.match(NO_DENORT_MESSAGE, /deno run/);
});

Deno.test("--dry-run prints one deno compile command per shim and runs nothing", async () => {
  const home = await Deno.makeTempDir();
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./compile.ts", import.meta.url).pathname, "--dry-run"],
      env: { KIRO_LEARN_HOME: home },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
    assert.equal(lines.length, 4);
    assert.ok(lines.every((line) => line.startsWith("deno compile ")));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
