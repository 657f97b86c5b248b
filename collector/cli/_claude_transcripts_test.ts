import assert from "node:assert/strict";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import { processText, runKiroLearn, startTestDaemon } from "../tooling/testing/mod.ts";
import { transcriptsDir } from "./_claude_transcripts.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
// Recorded from the real Claude Code 2.1.332 against the scripted model (see shims/testdata).
const TRANSCRIPT = `${ROOT}shims/testdata/claude_code/transcript.jsonl`;
const SESSION = "228aa5cf-8c7b-444a-89bd-8cde1e864f83";

Deno.test("transcriptsDir: Claude Code's folder name for a project (non-alphanumerics as -)", () => {
  assert.equal(
    transcriptsDir("/home/dev", "/home/dev/my.app/shop-api"),
    "/home/dev/.claude/projects/-home-dev-my-app-shop-api",
  );
});

Deno.test("kiro-learn import claude-code: a project's past sessions become events, once", async () => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const project = `${home}/shop-api`;
  await Deno.mkdir(`${project}/.git`, { recursive: true });
  const dir = transcriptsDir(home, project);
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
      /imported 1 Claude Code session\(s\) of .*shop-api: 3 events, 0 not taken/,
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
  const dir = transcriptsDir(home, project);
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
      new RegExp(`imported 3 Claude Code session\\(s\\) .*: ${total} events`),
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
