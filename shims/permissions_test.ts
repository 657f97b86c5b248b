import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { SHIM_ENV_VARS } from "./env.ts";
import {
  hookCommandLine,
  SHIM_BIN_DIR,
  SHIM_ENTRIES,
  shimCommand,
  shimEntryPath,
  shimPermissionFlags,
  shimPermissions,
  type ShimSurface,
  WORKSPACE_CONFIG,
} from "./permissions.ts";

const settings = loadSettings({
  env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn", KIRO_LEARN_PORT: "21234" },
});

Deno.test("shim permissions: loopback host:port, data dir + home + roots, spool only, listed env", () => {
  const permissions = shimPermissions(settings, {
    home: "/home/ada",
    projectRoots: ["/srv/app", "/"],
  });
  assert.deepEqual(permissions, {
    net: "127.0.0.1:21234",
    read: ["/home/ada/.kiro-learn", "/home/ada", "/srv/app"],
    write: ["/home/ada/.kiro-learn/spool"],
    env: SHIM_ENV_VARS,
    sys: ["hostname"],
  });
  assert.deepEqual(shimPermissionFlags(permissions), [
    "--no-prompt",
    "--allow-net=127.0.0.1:21234",
    "--allow-read=/home/ada/.kiro-learn,/home/ada,/srv/app",
    "--allow-write=/home/ada/.kiro-learn/spool",
    `--allow-env=${SHIM_ENV_VARS.join(",")}`,
    "--allow-sys=hostname",
  ]);
});

Deno.test("an IPv6 loopback collector is bracketed in the net permission", () => {
  const v6 = { ...settings, collector: { host: "::1", port: 21100 } };
  assert.equal(shimPermissions(v6, { home: "/h" }).net, "[::1]:21100");
});

Deno.test("shimCommand: deno run with the flags, or the compiled binary when present", async () => {
  const argv = shimCommand("kiro-ide", {
    settings,
    args: ["promptSubmit"],
    home: "/home/ada",
    preferCompiled: false,
    denoPath: "/usr/bin/deno",
  });
  assert.deepEqual(argv.slice(0, 4), ["/usr/bin/deno", "run", "--config", WORKSPACE_CONFIG]);
  assert.deepEqual(argv.slice(-2), [shimEntryPath("kiro-ide"), "promptSubmit"]);
  assert.ok(!argv.includes("-A") && !argv.some((a) => /^--allow-[a-z]+$/.test(a)));

  const binDir = await Deno.makeTempDir();
  try {
    const bin = `${binDir}/${SHIM_ENTRIES["claude-code"].bin}`;
    await Deno.writeTextFile(bin, "#!/bin/sh\n");
    await Deno.chmod(bin, 0o755);
    assert.deepEqual(shimCommand("claude-code", { settings, binDir }), [bin]);
    assert.equal(shimCommand("kiro-cli", { settings, binDir })[1], "run");
  } finally {
    await Deno.remove(binDir, { recursive: true });
  }
  assert.ok(SHIM_BIN_DIR.endsWith("/shims/bin/"));
});

Deno.test("hookCommandLine execs the shim (so its parent is the agent) and quotes safely", () => {
  assert.equal(
    hookCommandLine(["/opt/deno", "run", "--allow-read=/a b", "x's.ts"]),
    `exec /opt/deno run '--allow-read=/a b' 'x'\\''s.ts'`,
  );
});

Deno.test("a data dir whose path holds a comma is refused with a fix-it message", () => {
  const odd = loadSettings({ env: { KIRO_LEARN_HOME: "/tmp/a,b" } });
  assert.throws(() => shimPermissions(odd), /comma/);
});

Deno.test("shim entries import only the small pure parts of core (no storage, hono, collector)", async () => {
  const allowed = [
    /^file:\/\/.*\/shims\/[a-z_]+\.ts$/,
    /^file:\/\/.*\/core\/(ids|version)\.ts$/,
    /^file:\/\/.*\/core\/(schemas|project|settings)\/[a-z_]+\.ts$/,
    /^node:(crypto|path)$/,
    /^npm:\/(zod|ulid)@/,
  ];
  for (const surface of Object.keys(SHIM_ENTRIES) as ShimSurface[]) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", WORKSPACE_CONFIG, shimEntryPath(surface)],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    const info = JSON.parse(new TextDecoder().decode(output.stdout));
    const specifiers: string[] = info.modules.map((m: { specifier: string }) => m.specifier);
    for (const specifier of specifiers) {
      assert.ok(allowed.some((re) => re.test(specifier)), `${surface} imports ${specifier}`);
    }
    for (const shimModule of specifiers.filter((s) => s.includes("/shims/"))) {
      assert.doesNotMatch(
        shimModule,
        /(replay|permissions|compile|testing|mod)\.ts$/,
        `${surface}: ${shimModule}`,
      );
    }
  }
});
