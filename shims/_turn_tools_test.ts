// The transcripts are the real Claude Code 2.1.332's (see testdata/claude_code/README.md): one
// with a prompt and a failing Bash call, one with a prompt and six tool calls.
import assert from "node:assert/strict";
import type { HookPlan } from "@kiro-learn/core/hooks";
import {
  MAX_TURN_BYTES,
  TURN_STATE_MAX_AGE_MS,
  turnStatePath,
  turnToolUses,
} from "./_turn_tools.ts";
import { fixtureText } from "./testing.ts";

const SESSION = "228aa5cf-8c7b-444a-89bd-8cde1e864f83";
// One prompt, one failing Bash call, the answer.
const FAILING = fixtureText("claude_code/transcript.jsonl", "/work/shop-api");
// One prompt, six tool calls (Bash, Write, Read, Edit, Bash, Bash), the answer.
const SIX_TOOLS = fixtureText("claude_code/transcript_tools.jsonl", "/work/shop-api");

async function withTranscript(
  fn: (t: { file: string; spoolDir: string; plan: HookPlan }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kl-turn-" });
  try {
    const file = `${dir}/${SESSION}.jsonl`;
    const plan: HookPlan = {
      surface: "claude-code",
      hook: "Stop",
      sessionId: SESSION,
      cwd: "/work/shop-api",
      events: [],
      timeout: "store",
      transcript: file,
    };
    await fn({ file, spoolDir: `${dir}/spool`, plan });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function toolNames(found: Awaited<ReturnType<typeof turnToolUses>>): string[] {
  return (found?.deliveries ?? []).map((d) => {
    const body = d.event.body;
    if (body.type !== "json") throw new Error(`a tool use's body is json, got ${body.type}`);
    const data = body.data as { tool_name: string; failed?: boolean };
    return data.failed ? `${data.tool_name} (failed)` : data.tool_name;
  });
}

Deno.test("a session's first turn end reads its current turn only, then goes on from there", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    // Two turns, the session never seen: the earlier turn is older than this install (or was
    // recorded by an older install's tool hooks).
    await Deno.writeTextFile(file, FAILING + SIX_TOOLS);
    const first = await turnToolUses(plan, config);
    assert.deepEqual(toolNames(first), ["Bash", "Write", "Read", "Edit", "Bash", "Bash"]);
    assert.ok(first!.deliveries.every((d) => d.query === "" && d.event.kind === "tool_use"));
    first!.delivered();
    assert.equal(
      Number(await Deno.readTextFile(turnStatePath(spoolDir, SESSION))),
      (await Deno.stat(file)).size,
    );
    // Nothing new: nothing to deliver.
    assert.deepEqual(toolNames(await turnToolUses(plan, config)), []);
    // The next turn (a failing Bash call) is read, and only it.
    await Deno.writeTextFile(file, FAILING, { append: true });
    const next = await turnToolUses(plan, config);
    assert.deepEqual(toolNames(next), ["Bash (failed)"]);
    next!.delivered();
    assert.deepEqual(toolNames(await turnToolUses(plan, config)), []);
  });
});

Deno.test("a line still being written, or a call without its result yet, is read again at the next turn end", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    await Deno.writeTextFile(file, "");
    (await turnToolUses(plan, config))!.delivered();
    const lines = SIX_TOOLS.split("\n");
    // Cut in the middle of the line holding the last tool's result.
    const last = lines.findLastIndex((l) => l.includes('"tool_result"'));
    const head = lines.slice(0, last).join("\n") + "\n" + lines[last].slice(0, 40);
    await Deno.writeTextFile(file, head);
    const cut = await turnToolUses(plan, config);
    assert.deepEqual(toolNames(cut), ["Bash", "Write", "Read", "Edit", "Bash"]);
    cut!.delivered();
    // The last call's line is read again with its result: the call is not lost.
    await Deno.writeTextFile(file, SIX_TOOLS);
    const rest = await turnToolUses(plan, config);
    assert.deepEqual(toolNames(rest), ["Bash"]);
    rest!.delivered();
    assert.equal(
      Number(await Deno.readTextFile(turnStatePath(spoolDir, SESSION))),
      (await Deno.stat(file)).size,
    );
  });
});

Deno.test("reading the same lines again gives the same event ids (the collector stores each once)", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    await Deno.writeTextFile(file, SIX_TOOLS);
    const ids = async () =>
      (await turnToolUses(plan, config))!.deliveries.map((d) => d.event.event_id);
    const once = await ids();
    assert.equal(new Set(once).size, 6);
    assert.deepEqual(await ids(), once);
    // Times are the transcript's: when each tool ran, in order.
    const times = (await turnToolUses(plan, config))!.deliveries.map((d) => d.event.valid_time);
    assert.deepEqual([...times].sort(), times);
    assert.ok(times[0].startsWith("2026-11-25T15:13"), times[0]);
  });
});

Deno.test("a mark past the end (the transcript was replaced) reads the file from its start", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    await Deno.writeTextFile(file, FAILING + SIX_TOOLS);
    await Deno.mkdir(`${spoolDir}/.turns`, { recursive: true });
    await Deno.writeTextFile(turnStatePath(spoolDir, SESSION), String(10 * MAX_TURN_BYTES));
    // A session with a mark: every turn since it, here the whole file.
    assert.equal((await turnToolUses(plan, config))!.deliveries.length, 7);
  });
});

Deno.test("no transcript, a path that is not a .jsonl file, or an unreadable one: null, said on stderr", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    assert.equal(await turnToolUses({ ...plan, transcript: undefined }, config), null);
    assert.equal(await turnToolUses({ ...plan, transcript: "relative.jsonl" }, config), null);
    assert.equal(await turnToolUses({ ...plan, transcript: "/etc/passwd" }, config), null);
    assert.equal(await turnToolUses({ ...plan, transcript: file }, config), null, "missing file");
  });
});

Deno.test("a session's mark is dropped a month after its last turn; others stay", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    await Deno.mkdir(`${spoolDir}/.turns`, { recursive: true });
    const old = turnStatePath(spoolDir, "old-session");
    const recent = turnStatePath(spoolDir, "recent-session");
    await Deno.writeTextFile(old, "10");
    await Deno.writeTextFile(recent, "10");
    const longAgo = new Date(Date.now() - TURN_STATE_MAX_AGE_MS - 60_000);
    await Deno.utime(old, longAgo, longAgo);
    await Deno.writeTextFile(file, FAILING);
    (await turnToolUses(plan, config))!.delivered();
    await assert.rejects(() => Deno.stat(old), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(recent), "10");
    // A session id is a file name only once made safe.
    assert.equal(turnStatePath("/s", "../../etc/x"), "/s/.turns/s-.._.._etc_x");
    assert.equal(turnStatePath("/s", ".."), "/s/.turns/s-..");
  });
});

Deno.test("an empty or unreadable mark is no mark (the current turn only), never offset 0", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    await Deno.writeTextFile(file, FAILING + SIX_TOOLS);
    await Deno.mkdir(`${spoolDir}/.turns`, { recursive: true });
    for (const torn of ["", "  \n", "12x"]) {
      await Deno.writeTextFile(turnStatePath(spoolDir, SESSION), torn);
      assert.equal((await turnToolUses(plan, config))!.deliveries.length, 6, JSON.stringify(torn));
    }
    // A mark is written whole: no temporary file is left beside it.
    (await turnToolUses(plan, config))!.delivered();
    assert.deepEqual([...Deno.readDirSync(`${spoolDir}/.turns`)].map((e) => e.name), [
      `s-${SESSION}`,
    ]);
  });
});

Deno.test("a subagent's tool uses, in its own transcript beside the session's, come with the turn", async () => {
  await withTranscript(async ({ file, spoolDir, plan }) => {
    const config = { spoolDir, maxBodyBytes: 65_536 };
    await Deno.writeTextFile(file, FAILING);
    // Claude Code keeps a subagent's transcript in <session>/subagents/agent-<id>.jsonl, every
    // line of it a side conversation.
    const agents = `${file.slice(0, -".jsonl".length)}/subagents`;
    await Deno.mkdir(agents, { recursive: true });
    const side = SIX_TOOLS.replaceAll('"isSidechain":false', '"isSidechain":true');
    assert.notEqual(side, SIX_TOOLS, "the fixture marks its lines as main conversation");
    await Deno.writeTextFile(`${agents}/agent-a1b2.jsonl`, side);
    const found = await turnToolUses(plan, config);
    // In the order they happened: the session's own call, then the subagent's six.
    assert.deepEqual(toolNames(found), [
      "Bash (failed)",
      "Bash",
      "Write",
      "Read",
      "Edit",
      "Bash",
      "Bash",
    ]);
    found!.delivered();
    assert.deepEqual(toolNames(await turnToolUses(plan, config)), []);
    // The subagent goes on: only its new calls.
    await Deno.writeTextFile(
      `${agents}/agent-a1b2.jsonl`,
      FAILING.replaceAll('"isSidechain":false', '"isSidechain":true'),
      { append: true },
    );
    assert.deepEqual(toolNames(await turnToolUses(plan, config)), ["Bash (failed)"]);
  });
});
