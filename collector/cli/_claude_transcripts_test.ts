import assert from "node:assert/strict";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import {
  claudeSandbox,
  outputText,
  processText,
  requireClaudeCode,
  runClaude,
  runKiroLearn,
  startScriptedModel,
  startTestDaemon,
  toolThenText,
  waitFor,
} from "../tooling/testing/mod.ts";
import { claudeConfigDir, transcriptsDir, transcriptsFolderName } from "./_claude_transcripts.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
// Recorded from the real Claude Code 2.1.332 against the scripted model (see shims/testdata).
const TRANSCRIPT = `${ROOT}shims/testdata/claude_code/transcript.jsonl`;
const SESSION = "228aa5cf-8c7b-444a-89bd-8cde1e864f83";

Deno.test("transcriptsDir: Claude Code's folder name for a project (non-alphanumerics as -)", () => {
  assert.equal(
    transcriptsDir("/home/dev/.claude", "/home/dev/my.app/shop-api"),
    "/home/dev/.claude/projects/-home-dev-my-app-shop-api",
  );
  assert.equal(claudeConfigDir("/home/dev"), "/home/dev/.claude");
  assert.equal(claudeConfigDir("/home/dev", { CLAUDE_CONFIG_DIR: "/etc/cc" }), "/etc/cc");
});

Deno.test("kiro-learn import claude-code: a project's past sessions become events, once", async () => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const project = `${home}/shop-api`;
  await Deno.mkdir(`${project}/.git`, { recursive: true });
  const dir = transcriptsDir(`${home}/.claude`, project);
  await Deno.mkdir(dir, { recursive: true });
  const text = (await Deno.readTextFile(TRANSCRIPT)).replaceAll("${PROJECT}", project);
  await Deno.writeTextFile(`${dir}/${SESSION}.jsonl`, text);
  const run = (args: string[]) =>
    runKiroLearn(args, { env: { ...daemon.env, HOME: home }, cwd: project });
  const out = processText;
  try {
    const first = await run(["import", "claude-code"]);
    assert.equal(first.code, 0, out(first));
    assert.match(
      out(first),
      /imported 1 Claude Code session\(s\) of .*shop-api: 3 events added, 0 already present .*, 0 not taken/,
    );
    assert.match(out(first), /transcript lines skipped: .*attachment/);
    const namespace = resolveProject(project, { actor: currentActor(), home }).namespace;
    const page = await (await daemon.fetch(`/v1/events?limit=50&namespace=${namespace}`)).json();
    assert.deepEqual(
      page.items.map((e: { kind: string }) => e.kind).sort(),
      ["prompt", "session_summary", "tool_use"],
    );
    const again = await run(["import", "claude-code"]);
    assert.equal(again.code, 0, out(again));
    assert.match(out(again), /0 events added, 3 already present/);
    const after = await (await daemon.fetch(`/v1/events?limit=50&namespace=${namespace}`)).json();
    assert.equal(after.items.length, 3, "importing again adds nothing");
    const none = await run(["import", "claude-code", "--project", home]);
    assert.match(out(none), /no Claude Code sessions of/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

// Two more sessions of one project, recorded the same way (shims/testdata/claude_code/README.md):
// six tool uses (Bash, Write, Read, Edit, a grep, a `test -f` Claude Code reads as "Condition is
// false", not as an error) in one turn, and a prompt
// holding a GitHub token and a <private> password whose Bash call carries an AWS key id.
const SESSIONS = [
  { file: TRANSCRIPT, id: SESSION, kinds: { prompt: 1, tool_use: 1, session_summary: 1 } },
  {
    file: `${ROOT}shims/testdata/claude_code/transcript_tools.jsonl`,
    id: "20079cb9-aa8b-482c-9f48-6cbdcf5a5bee",
    kinds: { prompt: 1, tool_use: 6, session_summary: 1 },
  },
  {
    file: `${ROOT}shims/testdata/claude_code/transcript_secrets.jsonl`,
    id: "2d4028da-2702-4d38-b846-0531b89d6aa1",
    kinds: { prompt: 1, tool_use: 1, session_summary: 1 },
  },
];
const SECRETS = [
  "ghp_Zq3Lk8Vw2Xn5Rt7Yb1Hc4Jd6Fg9Ms0PaEuTo",
  "Hunter2-staging",
  "AKIAZ7QWERTYUIOPLKJH",
];

Deno.test("kiro-learn import claude-code: three real sessions, each in its session, scrubbed, once", async () => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const project = `${home}/geometry`;
  await Deno.mkdir(`${project}/.git`, { recursive: true });
  const dir = transcriptsDir(`${home}/.claude`, project);
  await Deno.mkdir(dir, { recursive: true });
  for (const { file, id } of SESSIONS) {
    const text = (await Deno.readTextFile(file)).replaceAll("${PROJECT}", project)
      .replaceAll("${HOME}", home);
    await Deno.writeTextFile(`${dir}/${id}.jsonl`, text);
  }
  const run = (args: string[]) =>
    runKiroLearn(args, { env: { ...daemon.env, HOME: home }, cwd: project });
  const namespace = resolveProject(project, { actor: currentActor(), home }).namespace;
  const events = async () =>
    (await (await daemon.fetch(`/v1/events?limit=200&namespace=${namespace}`)).json()).items as {
      session_id: string;
      kind: string;
    }[];
  try {
    const first = await run(["import", "claude-code"]);
    assert.equal(first.code, 0, processText(first));
    const total = SESSIONS.reduce((n, s) => n + Object.values(s.kinds).reduce((a, b) => a + b), 0);
    assert.match(
      processText(first),
      new RegExp(`imported 3 Claude Code session\\(s\\) .*: ${total} events added`),
    );
    const stored = await events();
    for (const { id, kinds } of SESSIONS) {
      const got: Record<string, number> = {};
      for (const e of stored.filter((e) => e.session_id.includes(id))) {
        got[e.kind] = (got[e.kind] ?? 0) + 1;
      }
      assert.deepEqual(got, kinds, `session ${id}`);
    }
    const text = JSON.stringify(stored);
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} scrubbed`);
    const again = await run(["import", "claude-code"]);
    assert.equal(again.code, 0, processText(again));
    assert.equal((await events()).length, total, "importing again adds nothing");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("import claude-code (real client): sessions in a subfolder, under a path over 200 characters and under CLAUDE_CONFIG_DIR are found; a hooked session is not recorded twice", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedModel(
    toolThenText(
      { name: "Bash", input: { command: "false", description: "Run the failing check" } },
      "The check failed: false always exits 1.",
    ),
  );
  const delta = await box.project("delta");
  const sub = `${delta}/src/lib`;
  await Deno.mkdir(sub, { recursive: true });
  const long = await box.project(`long-${"x".repeat(200)}`);
  assert.ok(long.replace(/[^a-zA-Z0-9]/g, "-").length > 200);
  const binary = requireClaudeCode();
  const claude = (cwd: string, env: Record<string, string> = {}) =>
    runClaude(binary, "Run the check script and tell me why it fails", {
      cwd,
      env: { ...box.env, ...env },
      modelUrl: model.url,
    });
  // Sessions without our hooks: before kiro-learn is installed.
  for (const cwd of [sub, long]) {
    const run = await claude(cwd);
    assert.equal(run.code, 0, run.stdout + run.stderr);
  }
  const config = `${box.root}/claude-config`;
  const elsewhere = await claude(delta, { CLAUDE_CONFIG_DIR: config });
  assert.equal(elsewhere.code, 0, elsewhere.stdout + elsewhere.stderr);
  // Claude Code's own folder names: what the import must compute.
  const folders = [...Deno.readDirSync(`${box.home}/.claude/projects`)].map((e) => e.name);
  assert.ok(folders.includes(transcriptsFolderName(long)), `${folders}`);
  assert.ok(folders.includes(transcriptsFolderName(sub)), `${folders}`);
  assert.ok(
    [...Deno.readDirSync(`${config}/projects`)].some((e) =>
      e.name === transcriptsFolderName(delta)
    ),
  );

  // Then a session with the hooks, at the project's root.
  for (const args of [["install"], ["start"]]) {
    const done = await box.kiroLearn(args, delta);
    assert.equal(done.code, 0, outputText(done));
  }
  const hooked = await claude(delta);
  assert.equal(hooked.code, 0, hooked.stdout + hooked.stderr);
  const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
  const events = async (dir: string) => {
    const namespace = resolveProject(dir, { actor: box.actor, home: box.home }).namespace;
    const res = await fetch(
      `http://127.0.0.1:${box.port}/v1/events?limit=200&namespace=${encodeURIComponent(namespace)}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    return (await res.json()).items as { kind: string; session_id: string }[];
  };
  const recorded = await waitFor(async () => {
    const items = await events(delta);
    return items.some((e) => e.kind === "session_summary") ? items : undefined;
  }, { timeoutMs: 60_000, what: "the hooked session's end in the collector" });
  const hookedSession = recorded.find((e) => e.kind === "prompt")!.session_id;

  const imported = await box.kiroLearn(["import", "claude-code"], sub);
  assert.equal(imported.code, 0, outputText(imported));
  assert.match(
    outputText(imported),
    /imported 2 Claude Code session\(s\) of .*delta: 3 events added, 3 already present/,
  );
  const after = await events(delta);
  const count = (session: string, kind: string) =>
    after.filter((e) => e.session_id === session && e.kind === kind).length;
  assert.equal(count(hookedSession, "prompt"), 1, "the hooked prompt once");
  assert.equal(count(hookedSession, "session_summary"), 1, "the hooked turn's end once");
  const subSession = after.find((e) => e.session_id !== hookedSession)!.session_id;
  assert.deepEqual(
    ["prompt", "tool_use", "session_summary"].map((k) => count(subSession, k)),
    [1, 1, 1],
    "the subfolder's session, imported",
  );

  const longImport = await box.kiroLearn(["import", "claude-code"], long);
  assert.equal(longImport.code, 0, outputText(longImport));
  assert.match(outputText(longImport), /imported 1 Claude Code session\(s\) .*: 3 events added/);
  assert.equal((await events(long)).length, 3);

  box.env.CLAUDE_CONFIG_DIR = config;
  const configured = await box.kiroLearn(["import", "claude-code"], delta);
  assert.equal(configured.code, 0, outputText(configured));
  assert.match(outputText(configured), /imported 1 Claude Code session\(s\) .*: 3 events added/);
  box.env.CLAUDE_CONFIG_DIR = `${box.root}/nowhere`;
  const missing = await box.kiroLearn(["import", "claude-code"], delta);
  assert.equal(missing.code, 2, outputText(missing));
  assert.match(outputText(missing), /no Claude Code folder at .*nowhere: .*CLAUDE_CONFIG_DIR/);
  delete box.env.CLAUDE_CONFIG_DIR;
});
