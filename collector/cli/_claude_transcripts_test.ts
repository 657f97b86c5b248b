import assert from "node:assert/strict";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import { startTestDaemon } from "../tooling/testing/mod.ts";
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
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        "--allow-net=127.0.0.1,localhost",
        `${ROOT}collector/main.ts`,
        ...args,
      ],
      cwd: project,
      env: { ...daemon.env, HOME: home },
    }).output();
  const out = (o: Deno.CommandOutput) =>
    new TextDecoder().decode(o.stdout) + new TextDecoder().decode(o.stderr);
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
