import assert from "node:assert/strict";
import { loadSettings } from "../settings/mod.ts";
import { probeRemoteImports } from "../testing/mod.ts";
import {
  AGENT_PID_ARG,
  CLI_ENTRY,
  cliArgv,
  commandPresence,
  hookCommandLine,
  LOCAL_MODULES_ONLY,
  MCP_ENTRY,
  MCP_ENV_VARS,
  mcpCommand,
  readableRoot,
  REPO_ROOT,
  shellQuote,
  SHIM_BIN_DIR,
  SHIM_ENTRIES,
  SHIM_ENV_VARS,
  SHIM_RUN_FLAGS,
  shimCommand,
  shimEntryPath,
  shimPermissionFlags,
  shimPermissions,
  type ShimSurface,
  WORKSPACE_CONFIG,
} from "./mod.ts";

const settings = loadSettings({
  env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn", KIRO_LEARN_PORT: "21234" },
});

// --- layout -------------------------------------------------------------------------------

Deno.test("layout: every path core knows about exists in this checkout", () => {
  assert.ok(Deno.statSync(`${REPO_ROOT}/core/launch/layout.ts`).isFile);
  assert.equal(WORKSPACE_CONFIG, `${REPO_ROOT}/deno.json`);
  assert.ok(Deno.statSync(WORKSPACE_CONFIG).isFile);
  assert.ok(Deno.statSync(MCP_ENTRY).isFile);
  assert.equal(MCP_ENTRY, `${REPO_ROOT}/mcp/main.ts`);
  for (const surface of Object.keys(SHIM_ENTRIES) as ShimSurface[]) {
    assert.ok(Deno.statSync(shimEntryPath(surface)).isFile, surface);
    assert.equal(shimEntryPath(surface), `${REPO_ROOT}/shims/${SHIM_ENTRIES[surface].entry}`);
  }
  assert.equal(SHIM_BIN_DIR, `${REPO_ROOT}/shims/bin/`);
});

// --- shims --------------------------------------------------------------------------------

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
    run: ["/home/ada/.kiro-learn/bin/start-collector"],
  });
  assert.deepEqual(shimPermissionFlags(permissions), [
    "--no-prompt",
    "--allow-net=127.0.0.1:21234",
    "--allow-read=/home/ada/.kiro-learn,/home/ada,/srv/app",
    "--allow-write=/home/ada/.kiro-learn/spool",
    `--allow-env=${SHIM_ENV_VARS.join(",")}`,
    "--allow-sys=hostname",
    "--allow-run=/home/ada/.kiro-learn/bin/start-collector",
  ]);
});

Deno.test("shim permissions: every read root canonical, never `/` however it is spelled", async () => {
  for (const spelling of ["/", "//", "/.", "/etc/..", "/./", "///etc/../."]) {
    assert.equal(readableRoot(spelling), null, spelling);
    const { read } = shimPermissions(settings, { home: spelling, projectRoots: [spelling] });
    assert.deepEqual(read, ["/home/ada/.kiro-learn"], spelling);
  }
  assert.equal(readableRoot("relative/dir"), null);
  assert.equal(readableRoot("/srv/a,b"), null);
  assert.equal(readableRoot("/srv/app/../app/./src/"), "/srv/app/src");
  // A symlink to `/` is `/`; one to a folder is that folder.
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kl-roots-" }));
  try {
    await Deno.symlink("/", `${dir}/disk`);
    await Deno.mkdir(`${dir}/real`);
    await Deno.symlink(`${dir}/real`, `${dir}/link`);
    assert.equal(readableRoot(`${dir}/disk`), null);
    assert.equal(readableRoot(`${dir}/link`), `${dir}/real`);
    const { read } = shimPermissions(settings, {
      home: `${dir}/disk`,
      projectRoots: [`${dir}/disk`, `${dir}/link/`],
    });
    assert.deepEqual(read, ["/home/ada/.kiro-learn", `${dir}/real`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SHIM_ENV_VARS lists exactly what a shim reads", () => {
  assert.deepEqual([...SHIM_ENV_VARS].sort(), [
    "HOME",
    "KIRO_LEARN_HOME",
    "KIRO_LEARN_HOST",
    "KIRO_LEARN_INTERNAL",
    "KIRO_LEARN_LOG_LEVEL",
    "KIRO_LEARN_PORT",
    "KIRO_SESSION_ID",
    "LOGNAME",
    "USER",
    "USERNAME",
    "USERPROFILE",
    "USER_PROMPT",
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
  assert.deepEqual(argv.slice(0, 2 + SHIM_RUN_FLAGS.length), [
    "/usr/bin/deno",
    "run",
    ...SHIM_RUN_FLAGS,
  ]);
  assert.ok(SHIM_RUN_FLAGS.includes(WORKSPACE_CONFIG));
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
  assert.equal(shellQuote("--agent-pid=$PPID"), `'--agent-pid=$PPID'`);
});

Deno.test("a data dir whose path holds a comma is refused with a fix-it message", () => {
  const odd = loadSettings({ env: { KIRO_LEARN_HOME: "/tmp/a,b" } });
  assert.throws(() => shimPermissions(odd), /comma/);
});

/** Spooled session ids after firing a Kiro CLI `stop` hook through `sh -c <command>`. */
async function fireThroughShell(command: string, env: Record<string, string>, cwd: string) {
  const child = new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const payload = { hook_event_name: "stop", cwd, assistant_response: "done" };
  await writer.write(new TextEncoder().encode(JSON.stringify(payload)));
  await writer.close();
  const output = await child.output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
}

function spooledSessionIds(spool: string): string[] {
  return [...Deno.readDirSync(spool)]
    .filter((e) => e.name.endsWith(".json"))
    .map((e) => e.name)
    .sort()
    .map((name) => JSON.parse(Deno.readTextFileSync(`${spool}/${name}`)).event.session_id);
}

Deno.test("Kiro hooks written `<argv> --agent-pid=$PPID || true` share one session id", async () => {
  const root = Deno.realPathSync(await Deno.makeTempDir({ prefix: "kiro-learn-launch-" }));
  try {
    // No token file: the shim cannot post and spools every event, which is what we inspect.
    const home = `${root}/data`;
    Deno.mkdirSync(home, { mode: 0o700 });
    const project = `${root}/project`;
    Deno.mkdirSync(project);
    Deno.writeTextFileSync(`${project}/deno.json`, "{}\n");
    const env = { KIRO_LEARN_HOME: home, KIRO_LEARN_PORT: "9", USER: "tester", HOME: root };
    const s = loadSettings({ env });
    const argv = shimCommand("kiro-cli", {
      settings: s,
      projectRoots: [project],
      preferCompiled: false,
    });
    const quoted = argv.map(shellQuote).join(" ");

    const withPid = `${quoted} ${AGENT_PID_ARG} || true`;
    await fireThroughShell(withPid, env, project);
    await fireThroughShell(withPid, env, project);
    const shared = spooledSessionIds(s.paths.spool);
    assert.equal(shared.length, 2);
    assert.equal(shared[0], shared[1], shared.join(" "));
    assert.match(shared[0], /^kiro-[0-9a-f]{32}$/);

    // Without it, each firing's parent is its own throw-away shell: two sessions.
    for (const e of Deno.readDirSync(s.paths.spool)) Deno.removeSync(`${s.paths.spool}/${e.name}`);
    await fireThroughShell(`${quoted} || true`, env, project);
    await fireThroughShell(`${quoted} || true`, env, project);
    const split = spooledSessionIds(s.paths.spool);
    assert.equal(split.length, 2);
    assert.notEqual(split[0], split[1]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

// --- MCP ----------------------------------------------------------------------------------

Deno.test("mcpCommand runs main.ts under the repo's config with narrow permissions", () => {
  const argv = mcpCommand({ host: "127.0.0.1", port: 21100, repoRoot: "/opt/kiro-learn" });
  assert.deepEqual(argv, [
    Deno.execPath(),
    "run",
    "--no-prompt",
    "--no-remote",
    "--cached-only",
    "--allow-net=127.0.0.1:21100",
    "--allow-read",
    `--allow-env=${MCP_ENV_VARS.join(",")}`,
    "--config",
    "/opt/kiro-learn/deno.json",
    "/opt/kiro-learn/mcp/main.ts",
  ]);
  assert.ok(!argv.some((a) => a === "-A" || a.startsWith("--allow-all")));
  assert.ok(!argv.some((a) => /^--allow-(write|run|ffi|sys)/.test(a)));
});

Deno.test("mcpCommand brackets IPv6 hosts, honours execPath, defaults to this checkout", () => {
  const argv = mcpCommand({ host: "::1", port: 9000, execPath: "/usr/bin/deno" });
  assert.equal(argv[0], "/usr/bin/deno");
  assert.ok(argv.includes("--allow-net=[::1]:9000"));
  assert.equal(argv.at(-1), `${REPO_ROOT}/mcp/main.ts`);
  assert.equal(argv.at(-2), WORKSPACE_CONFIG);
});

Deno.test("MCP_ENV_VARS lists exactly what the server reads", () => {
  assert.deepEqual([...MCP_ENV_VARS].sort(), [
    "CLAUDE_PROJECT_DIR",
    "HOME",
    "KIRO_LEARN_HOME",
    "KIRO_LEARN_HOST",
    "KIRO_LEARN_LOG_LEVEL",
    "KIRO_LEARN_PORT",
    "KIRO_LEARN_PROJECT_DIR",
    "LOGNAME",
    "USER",
    "USERNAME",
    "USERPROFILE",
  ]);
});

// --- no remote imports ----------------------------------------------------------------------

Deno.test("no process we launch may import() a remote module: refused before any connection", async () => {
  // The control: plain `deno run` fetches from its default import hosts (through the proxy).
  const control = await probeRemoteImports([Deno.execPath(), "run", "--no-prompt", "x"], "x");
  assert.ok(control.connections > 0, "the probe's proxy was never used: the test proves nothing");

  const shim = shimCommand("claude-code", { settings, preferCompiled: false });
  const mcp = mcpCommand({ host: "127.0.0.1", port: 21234 });
  const cli = cliArgv();
  for (
    const [name, argv, entry] of [
      ["shim", shim, shimEntryPath("claude-code")],
      ["MCP server", mcp, MCP_ENTRY],
      ["kiro-learn CLI", cli, CLI_ENTRY],
    ] as const
  ) {
    for (const flag of LOCAL_MODULES_ONLY) assert.ok(argv.includes(flag), `${name}: ${flag}`);
    const { outcome, connections } = await probeRemoteImports([...argv], entry);
    for (const [specifier, result] of Object.entries(outcome)) {
      assert.match(result, /^refused: /, `${name}: ${specifier}`);
    }
    assert.equal(connections, 0, `${name}: a remote import reached the network`);
  }
});

Deno.test("commandPresence: a path (relative to cwd) or a name on PATH; false for a missing one", () => {
  assert.equal(commandPresence("/bin/sh"), true);
  assert.equal(commandPresence("sh"), true);
  assert.equal(commandPresence("/nonexistent/agent"), false);
  assert.equal(commandPresence("no-such-command-kiro-learn"), false);
  assert.equal(commandPresence("./sh", { cwd: "/bin" }), true);
  assert.equal(commandPresence("./deno.json", { cwd: REPO_ROOT }), false, "not executable");
});
