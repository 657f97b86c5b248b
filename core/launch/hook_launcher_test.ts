import assert from "node:assert/strict";
import { loadSettings } from "../settings/mod.ts";
import { resolveProject } from "../project/mod.ts";
import {
  AGENT_CWD_ARG,
  HOME_DATA_DIR,
  hookLauncherScript,
  launcherFiles,
  launcherPath,
  mcpHeadersLauncherScript,
  mcpRelayLauncherScript,
  portablePath,
  TURN_END_SETTLE_S,
} from "./hook_launcher.ts";
import { shimCommand } from "./shim.ts";
import { launcherReadGrant, makeGitdirWorld, runGit, seedRepo, waitFor } from "../testing/mod.ts";

Deno.test("portablePath: the default data dir is named through $HOME, any other stays absolute", () => {
  const home = "/home/ada";
  const dataDir = "/home/ada/.kiro-learn";
  assert.equal(
    portablePath("/home/ada/.kiro-learn/bin/hook-kiro-cli", { home, dataDir }),
    `${HOME_DATA_DIR}/bin/hook-kiro-cli`,
  );
  assert.equal(
    portablePath("/srv/kl/bin/hook-kiro-cli", { home, dataDir: "/srv/kl" }),
    "/srv/kl/bin/hook-kiro-cli",
  );
  assert.equal(launcherPath("/d/bin", "mcp"), "/d/bin/mcp-server");
  assert.equal(launcherPath("/d/bin", "claude-code"), "/d/bin/hook-claude-code");
});

Deno.test("launcherFiles: one per surface and the MCP server, each exec-ing its entry", () => {
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn" } });
  const files = launcherFiles(settings, { home: "/home/ada", denoPath: "/opt/deno" });
  assert.deepEqual(files.map((f) => f.path.split("/").at(-1)), [
    "hook-kiro-cli",
    "hook-kiro-ide",
    "hook-claude-code",
    "hook-codex",
    "hook-gemini-cli",
    "hook-copilot-cli",
    "mcp-server",
    "mcp-relay",
    "mcp-headers",
  ]);
  for (const file of files) {
    assert.ok(file.content.startsWith("#!/bin/sh\n"));
    if (/hook-(claude-code|codex|gemini-cli|copilot-cli)$/.test(file.path)) {
      // The fast-path launchers read the payload first, then hand it to the shim through a pipe,
      // with the firing's clock read in the foreground (event ids keep the order of firing); a
      // shim that cannot start leaves the agent what it accepts.
      assert.match(
        file.content,
        /\n {2}deliver\(\) \{ printf '%s\\n' "\$payload" \| '?\/opt\/deno'? run .* \$\{firing:\+"--firing=\$firing"\} \$tools "\$@" \|\| printf '%s' "\$silent"; \}\n/,
      );
      // A turn's end goes to the shim (it reads the transcript), and over the socket when the
      // shim cannot start.
      assert.match(
        file.content,
        /\n {6}printf '%s\\n' "\$payload" \| '?\/opt\/deno'? run .* \$tools "\$@" && \{ recheck; exit 0; \}\n/,
      );
      assert.match(file.content, /\) store=1 tools=--turn-tools ;;\n/);
      assert.match(
        file.content,
        /hook-(gemini|copilot)-cli$/.test(file.path) ? /\nsilent='\{\}\n'\n/ : /\nsilent=''\n/,
      );
      // Its hook command execs it: it exits 0 whatever the shim's end.
      assert.match(file.content, /\ndeliver "\$@"\nexit 0\n$/);
      continue;
    }
    assert.match(file.content, /\nexec '?\/opt\/deno'? run .*"(\$@|--agent-cwd=\$agent_cwd)"\n$/);
  }
  assert.match(
    files[0].content,
    /--allow-read=\/home\/ada\/\.kiro-learn,\/home\/ada'?"\$\{root:\+,\$root\}\$\{gitdir:\+,\$gitdir\}"/,
  );
});

async function spooledNamespace(spool: string): Promise<string> {
  const [file] = [...Deno.readDirSync(spool)].filter((e) => e.name.endsWith(".json"));
  assert.ok(file, "the event was spooled");
  const namespace = JSON.parse(await Deno.readTextFile(`${spool}/${file.name}`)).event.namespace;
  await Deno.remove(`${spool}/${file.name}`);
  return namespace;
}

interface LauncherFixture {
  home: string;
  srv: string;
  settings: ReturnType<typeof loadSettings>;
  launcher: string;
  /** Runs `argv` as a Claude Code prompt hook in `cwd`; returns the namespace it spooled. */
  run: (argv: string[], cwd: string) => Promise<string>;
}

// A temporary $HOME with a data dir whose collector is down (port 9: nothing listens), so each
// hook spools its event with the namespace the shim resolved; and a folder outside $HOME.
async function withLauncher(fn: (f: LauncherFixture) => Promise<void>): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kl-home-" }));
  const srv = await Deno.realPath(await Deno.makeTempDir({ prefix: "kl-srv-" }));
  try {
    const dataDir = `${home}/.kiro-learn`;
    await Deno.mkdir(dataDir, { mode: 0o700 });
    await Deno.writeTextFile(`${dataDir}/settings.json`, '{"collector": {"port": 9}}');
    await Deno.writeTextFile(`${dataDir}/token`, "t0k3n-t0k3n-t0k3n-t0k3n\n");
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: dataDir } });
    const launcher = `${home}/hook-claude-code`;
    await Deno.writeTextFile(
      launcher,
      hookLauncherScript("claude-code", { settings, home, preferCompiled: false }),
      { mode: 0o700 },
    );
    const run = async (argv: string[], cwd: string) => {
      const payload = JSON.stringify({
        session_id: "3f2b8a6e-1c4d-4e9f-a7b2-5d6c8e0f1a23",
        cwd,
        hook_event_name: "UserPromptSubmit",
        prompt: "why does the invoice total round down?",
      });
      const child = new Deno.Command(argv[0], {
        args: argv.slice(1),
        cwd,
        clearEnv: true,
        env: { HOME: home, KIRO_LEARN_HOME: dataDir, USER: "tester", PATH: "/usr/bin:/bin" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(payload));
      await writer.close();
      const out = await child.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return await spooledNamespace(settings.paths.spool);
    };
    await fn({ home, srv, settings, launcher, run });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(srv, { recursive: true });
  }
}

Deno.test("a hook fired in a subfolder of a project outside $HOME files its event under the project", async () => {
  await withLauncher(async ({ home, srv, settings, launcher, run }) => {
    const project = `${srv}/billing-svc`;
    const deep = `${project}/src/lib`;
    await Deno.mkdir(`${project}/.git`, { recursive: true });
    await Deno.mkdir(deep, { recursive: true });
    const projectNamespace = resolveProject(project, { actor: "tester" }).namespace;
    assert.equal(await run([launcher], deep), projectNamespace);
    // The shim alone, reading only the data dir and $HOME, cannot see the .git above the
    // subfolder: the subfolder became a project of its own (what the launcher fixes).
    const alone = shimCommand("claude-code", { settings, home, preferCompiled: false });
    assert.notEqual(await run(alone, deep), projectNamespace);
  });
});

Deno.test("a hook in a worktree outside $HOME takes the repository's remote, as the CLI does", async () => {
  await withLauncher(async ({ home, srv, settings, launcher, run }) => {
    // The main repository and its worktree in two unrelated folders outside $HOME.
    const main = `${srv}/repos/billing`;
    await seedRepo(main);
    await runGit(main, "remote", "add", "origin", "git@github.com:acme/billing.git");
    const worktree = `${srv}/checkouts/billing-fix`;
    await Deno.mkdir(`${srv}/checkouts`);
    await runGit(main, "worktree", "add", "-q", worktree, "-b", "fix");
    // What the CLI and the MCP server (full read) resolve.
    const cli = resolveProject(worktree, { actor: "tester", home });
    assert.equal(cli.id_source, "git-remote");
    assert.equal(await run([launcher], worktree), cli.namespace);
    // Without the git dir in its read permission the shim could not see the remote.
    const alone = shimCommand("claude-code", {
      settings,
      home,
      preferCompiled: false,
      projectRoots: [worktree],
    });
    assert.notEqual(await run(alone, worktree), cli.namespace);
  });
});

Deno.test("the MCP headers launcher hands over the folder of the agent that runs it, not its own", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kl-agent-cwd-" }));
  try {
    const session = `${root}/shop api/src`;
    const config = `${root}/home/.claude`;
    await Deno.mkdir(session, { recursive: true });
    await Deno.mkdir(config, { recursive: true });
    const launcher = `${root}/mcp-headers`;
    // `printf` stands in for the helper: it prints the argument the launcher hands over, and
    // the folder it runs in (the launcher's own: it looked for the agent's and came back).
    await Deno.writeTextFile(
      launcher,
      mcpHeadersLauncherScript(["sh", "-c", 'printf "%s %s" "$1" "$PWD"', "helper"]),
      { mode: 0o700 },
    );
    // As Claude Code runs it: the agent works in the session's folder and runs the helper in
    // its config folder through `sh -c` (with exec, and without, one more process between).
    for (const command of [`exec '${launcher}'`, `'${launcher}'; true`]) {
      const agent = await new Deno.Command("sh", {
        args: ["-c", `(cd '${config}' && sh -c "${command}")`],
        cwd: session,
      }).output();
      const decoder = new TextDecoder();
      assert.equal(
        decoder.decode(agent.stdout),
        `${AGENT_CWD_ARG}${session} ${config}`,
        `${command}: ${decoder.decode(agent.stderr)}`,
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the JSON-payload agents' launchers have the socket fast path, and sh parses it", async () => {
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn" } });
  const files = launcherFiles(settings, { home: "/home/ada", denoPath: "/opt/deno" });
  for (const file of files) {
    const fast = file.content.includes("--unix-socket");
    assert.equal(
      fast,
      /\/(hook-claude-code|hook-codex|hook-gemini-cli|hook-copilot-cli|mcp-headers|mcp-relay)$/
        .test(
          file.path,
        ),
      file.path,
    );
    const parsed = await new Deno.Command("/bin/sh", { args: ["-n", "-c", file.content] }).output();
    assert.equal(parsed.code, 0, new TextDecoder().decode(parsed.stderr));
  }
  const claude = files.find((f) => f.path.endsWith("hook-claude-code"))!.content;
  assert.match(claude, /sock=\/home\/ada\/\.kiro-learn\/collector\.sock\n/);
  assert.match(claude, /-H @"\$auth"/);
  assert.match(claude, /http:\/\/127\.0\.0\.1:21100\/v1\/hooks\/claude-code/);
  // The payload reaches the shim through a pipe, never a file.
  assert.match(claude, /printf '%s\\n' "\$payload" \| '?\/opt\/deno'? run /);
  // Each agent's launcher posts to its own route.
  for (const agent of ["codex", "gemini-cli", "copilot-cli"]) {
    const content = files.find((f) => f.path.endsWith(`hook-${agent}`))!.content;
    assert.match(content, new RegExp(`http://127\\.0\\.0\\.1:21100/v1/hooks/${agent};`));
    assert.doesNotMatch(content, /\/v1\/hooks\/claude-code/);
  }
  // The MCP relay: the namespace from the headers route, every line to the MCP route, the token
  // only from the header file.
  const relay = files.find((f) => f.path.endsWith("mcp-relay"))!.content;
  assert.match(relay, /http:\/\/127\.0\.0\.1:21100\/v1\/mcp\/headers /);
  assert.match(relay, /-H @"\$auth" -H "X-Kiro-Learn-Namespace: \$ns"/);
  assert.match(relay, /http:\/\/127\.0\.0\.1:21100\/v1\/mcp 2>/);
  assert.doesNotMatch(relay, /Bearer|Authorization/);
  assert.match(relay, /\nexec '?\/opt\/deno'? run .*\/mcp\/main\.ts'? "\$@"\n$/);
  // Copilot CLI's payloads name no event: its hook command's first argument goes in a header.
  const copilot = files.find((f) => f.path.endsWith("hook-copilot-cli"))!.content;
  assert.match(copilot, /-H "X-Kiro-Learn-Event: \$event"/);
  assert.doesNotMatch(claude, /X-Kiro-Learn-Event/);
  assert.doesNotMatch(claude, /payload" *>/);
  // The headers helper asks its own route over the same socket, with the same header file.
  const headers = files.find((f) => f.path.endsWith("mcp-headers"))!.content;
  assert.match(headers, /-H @"\$auth"/);
  assert.match(headers, /http:\/\/127\.0\.0\.1:21100\/v1\/mcp\/headers/);
});

Deno.test("the MCP headers launcher forks no subshell up to its cached answer", () => {
  // Claude Code waits for every session's MCP connection, the headers helper included: up to
  // its cached answer, the launcher forks no subshell (the hostname's `uname` is a fallback for
  // a system without /proc/sys/kernel/hostname).
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn" } });
  const script = mcpHeadersLauncherScript(["/opt/helper"], { settings });
  const upToCache = script.slice(0, script.indexOf("out=$(curl")).split("\n")
    .filter((line) => !line.trimStart().startsWith("#")).join("\n");
  assert.ok(
    upToCache.includes("agent_cwd=") && upToCache.includes(settings.paths.mcpHeadersCache),
    upToCache,
  );
  const substitutions = upToCache.match(/\$\(|`/g) ?? [];
  assert.deepEqual(substitutions, ["$("], upToCache);
  assert.match(upToCache, /\|\| host=\$\(uname -n 2>\/dev\/null\)/);
});

Deno.test("the stdio MCP relay forks only to ask the collector: its cached answers cost no process", () => {
  // Gemini CLI and Copilot CLI wait for their MCP servers' tools before the first model request:
  // once warm, the relay answers the session's start from its caches, with builtins only.
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn" } });
  const script = mcpRelayLauncherScript({ settings, host: "127.0.0.1", port: 1 });
  const forks = script.split("\n").filter((line) => !line.trimStart().startsWith("#"))
    .flatMap((line) => line.match(/\$\([a-z]+( -[a-z])?/g) ?? []);
  assert.deepEqual(forks, ["$(uname -n", "$(curl", "$(printf"]);
  // The cached answers are printed by the builtin printf, the headers read by `read`.
  assert.match(script, /"init:\$init_req"\) printf /);
  assert.match(script, /IFS= read -r seen; IFS= read -r line; \} <[^\n]*mcp-headers\.cache/);
});

Deno.test("a .git file cannot widen a hook's read permission: canonical roots, never `/`", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kl-gitdir-" }));
  try {
    const { home, project, expected, hostile } = await makeGitdirWorld(dir);
    for (const target of hostile) {
      await Deno.writeTextFile(`${project}/.git`, `gitdir: ${target}\n`);
      for (const surface of ["kiro-cli", "claude-code"] as const) {
        const read = await launcherReadGrant(surface, { home, cwd: `${project}/src` });
        assert.deepEqual(read, expected, `${surface}: ${target}`);
      }
    }
    // Claude Code's own folder, however spelled, is never the whole disk either.
    await Deno.remove(`${project}/.git`);
    await Deno.mkdir(`${project}/.git`);
    for (const config of ["/", "//", "/.", "/etc/..", `${dir}/disk.git`]) {
      const read = await launcherReadGrant("claude-code", {
        home,
        cwd: project,
        env: { CLAUDE_CONFIG_DIR: config },
      });
      assert.deepEqual(read, expected, config);
    }
    // A real worktree's git dir is granted, canonical; so is a project reached through a link.
    const main = `${dir}/repos/billing`;
    await seedRepo(main);
    const worktree = `${dir}/checkouts/fix`;
    await Deno.mkdir(`${dir}/checkouts`);
    await runGit(main, "worktree", "add", "-q", worktree, "-b", "fix");
    await Deno.symlink(`${dir}/checkouts`, `${dir}/via-link`);
    const read = await launcherReadGrant("kiro-cli", { home, cwd: `${dir}/via-link/fix` });
    assert.deepEqual(read, [`${home}/.kiro-learn`, home, worktree, `${main}/.git`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// A turn's end of an agent that exits right after it (Codex CLI here) is handed to its shim only
// once the agent is gone, or after TURN_END_SETTLE_S if it stays. The "agent" is a shell that
// runs the launcher as its hook, then lives on a while and leaves a marker as it exits; the
// "shim" (a stand-in for deno) writes down whether the marker was there when it started.
Deno.test("a turn's end waits for its agent to exit before its shim starts, and not forever", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kl-home-" }));
  const dataDir = `${home}/.kiro-learn`;
  await Deno.mkdir(dataDir, { mode: 0o700 });
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: dataDir } });
  await Deno.writeTextFile(settings.paths.hookAuth, "Authorization: Bearer t0k3n\n", {
    mode: 0o600,
  });
  // Only its existence matters: a socket opens the fast path, where a turn's end goes to the
  // shim first.
  const socket = Deno.listen({ transport: "unix", path: settings.paths.socket });
  const project = `${home}/shop-api`;
  await Deno.mkdir(`${project}/.git`, { recursive: true });
  const log = `${home}/shim.log`;
  const fakeDeno = `${home}/fake-deno`;
  await Deno.writeTextFile(
    fakeDeno,
    `#!/bin/sh\ncat >/dev/null\nfor a; do case "$a" in --turn-tools) ;; *) continue ;; esac\n` +
      `  if [ -e "$MARKER" ]; then echo after >>"${log}"; else echo before >>"${log}"; fi\ndone\n`,
    { mode: 0o700 },
  );
  const launcher = `${home}/hook-codex`;
  await Deno.writeTextFile(
    launcher,
    hookLauncherScript("codex", { settings, home, preferCompiled: false, denoPath: fakeDeno }),
    { mode: 0o700 },
  );
  const payload = JSON.stringify({
    session_id: "019a3c1e-7b2d-7f40-9e61-2c8d4b5a6f10",
    cwd: project,
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: "The check failed.",
  });
  // The agent: runs its hook (the launcher, a child of it), does `then`, leaves the marker and
  // exits.
  const agent = (then: string, marker: string) =>
    new Deno.Command("/bin/sh", {
      args: ["-c", `printf '%s' "$2" | "$1"; ${then}; : >"$MARKER"`, "agent", launcher, payload],
      cwd: project,
      clearEnv: true,
      env: {
        HOME: home,
        KIRO_LEARN_HOME: dataDir,
        USER: "tester",
        PATH: "/usr/bin:/bin",
        MARKER: marker,
      },
    }).output();
  const shimRuns = async (count: number) =>
    await waitFor(async () => {
      const text = await Deno.readTextFile(log).catch(() => "");
      const lines = text.split("\n").filter(Boolean);
      return lines.length >= count ? lines : undefined;
    }, { what: `${count} turn's end shim run(s)` });
  try {
    // Exits a second after its hook: the shim starts after the exit, not in that second.
    assert.equal((await agent("sleep 1", `${home}/exited-1`)).code, 0);
    assert.deepEqual(await shimRuns(1), ["after"]);
    // Stays (an interactive session waiting for its user) until its turn's end is recorded
    // (20 times TURN_END_SETTLE_S at most): recorded anyway, TURN_END_SETTLE_S after the hook,
    // while it still runs.
    const stays =
      `n=0; until [ "$(wc -l <"${log}")" -ge 2 ] || [ $n -ge ${TURN_END_SETTLE_S * 200} ]; do ` +
      "sleep 0.1; n=$((n + 1)); done";
    const staying = agent(stays, `${home}/exited-2`);
    assert.deepEqual(await shimRuns(2), ["after", "before"]);
    assert.equal((await staying).code, 0);
  } finally {
    socket.close();
    await Deno.remove(home, { recursive: true });
  }
});
