import assert from "node:assert/strict";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import { processText, runKiroLearn, startTestDaemon } from "../tooling/testing/mod.ts";
import { claudeConfigDir, transcriptsDir } from "./_claude_transcripts.ts";
import { isOwnAgentSession } from "./_own_sessions.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
// Recorded from the real Claude Code (see testdata/README.md and shims/testdata/claude_code).
const EXTRACTION = `${ROOT}collector/cli/testdata/extraction_session.jsonl`;
const EXTRACTION_ID = "5e826455-7944-4a63-9476-3a7d5aa259b5";
const USER_SESSION = `${ROOT}shims/testdata/claude_code/transcript.jsonl`;
const USER_SESSION_ID = "228aa5cf-8c7b-444a-89bd-8cde1e864f83";

/** A temp folder holding `name` with `${PROJECT}` in `source` replaced by `project`. */
async function transcript(dir: string, name: string, source: string, project: string) {
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}/${name}.jsonl`;
  await Deno.writeTextFile(
    path,
    (await Deno.readTextFile(source)).replaceAll("${PROJECT}", project),
  );
  return path;
}

Deno.test("isOwnAgentSession: an extraction session is ours, by its prompt or by the folder it ran in; a user's is not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-own-sessions-" });
  try {
    const workdir = `${dir}/data/agent-workdir`;
    const options = { agentWorkdir: workdir };
    // Left by an older kiro-learn in a project's folder: recognised by its prompt.
    const old = await transcript(dir, EXTRACTION_ID, EXTRACTION, `${dir}/shop-api`);
    assert.equal(await isOwnAgentSession(old, options), true);
    // A user's session in the project: not ours.
    const user = await transcript(dir, USER_SESSION_ID, USER_SESSION, `${dir}/shop-api`);
    assert.equal(await isOwnAgentSession(user, options), false);
    // Any session that ran in the agent folder is ours, whatever its prompt.
    const inWorkdir = await transcript(`${dir}/w`, USER_SESSION_ID, USER_SESSION, workdir);
    assert.equal(await isOwnAgentSession(inWorkdir, options), true);
    // A user who merely quotes our instructions later in a prompt is still the user.
    const quoting = `${dir}/quoting.jsonl`;
    const prompt = `Why does kiro-learn send this?\n\n${
      (await Deno.readTextFile(EXTRACTION)).slice(0, 2000)
    }`;
    await Deno.writeTextFile(
      quoting,
      JSON.stringify({
        type: "user",
        cwd: `${dir}/shop-api`,
        uuid: "u1",
        timestamp: "2026-11-29T01:00:00.000Z",
        message: { role: "user", content: prompt.replace("<extraction_request>", "x".repeat(300)) },
      }) + "\n",
    );
    assert.equal(await isOwnAgentSession(quoting, options), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kiro-learn import claude-code: an extraction session found in the project's folder is left out, the user's session imported", async () => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  try {
    const project = `${home}/shop-api`;
    await Deno.mkdir(`${project}/.git`, { recursive: true });
    const dir = transcriptsDir(claudeConfigDir(home), project);
    await transcript(dir, EXTRACTION_ID, EXTRACTION, project);
    await transcript(dir, USER_SESSION_ID, USER_SESSION, project);
    const out = await runKiroLearn(["import", "claude-code"], {
      env: { ...daemon.env, HOME: home },
      cwd: project,
    });
    assert.equal(out.code, 0, processText(out));
    assert.match(
      processText(out),
      /imported 1 Claude Code session\(s\) of .*shop-api: 3 events added, .*\(1 session\(s\) of kiro-learn's own LLM agents left out\)/,
    );
    const namespace = resolveProject(project, { actor: currentActor(), home }).namespace;
    const page = await (await daemon.fetch(`/v1/events?limit=50&namespace=${namespace}`)).json();
    assert.deepEqual(
      page.items.map((e: { session_id: string }) => e.session_id),
      [USER_SESSION_ID, USER_SESSION_ID, USER_SESSION_ID],
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
