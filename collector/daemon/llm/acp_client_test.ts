import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  AcpExitError,
  type AcpOptions,
  AcpProtocolError,
  AcpTimeoutError,
  runAcpPrompt,
} from "./acp_client.ts";
import type { StepWithStderr as Step } from "./testdata/scripted_agent.ts";
import { liveProcessGroup, processLives } from "../../tooling/testing/mod.ts";

const AGENT = fileURLToPath(new URL("./testdata/scripted_agent.ts", import.meta.url));
const COMMAND = [Deno.execPath(), "run", "-A", AGENT];

interface LogLine {
  type: string;
  pid?: number;
  prompt?: string;
  internal?: string | null;
  outcome?: { outcome: string; optionId?: string };
  ok?: boolean;
  code?: number | null;
}

/** A scratch directory holding one script, its step counter and its log. */
// The timeout of the tests whose agent hangs at the prompt: it must cover the scripted agent's
// own start (a `deno run`), which takes seconds on a loaded machine, or the call times out in
// `initialize` instead of where the test means it to.
const HANG_TIMEOUT_MS = 8000;

class Script {
  readonly dir: string;
  readonly env: Record<string, string>;

  constructor(steps: Step[]) {
    this.dir = Deno.makeTempDirSync({ prefix: "kiro-learn-acp-" });
    Deno.writeTextFileSync(`${this.dir}/script.json`, JSON.stringify(steps));
    this.env = {
      SCRIPTED_AGENT_SCRIPT: `${this.dir}/script.json`,
      SCRIPTED_AGENT_STATE: `${this.dir}/state`,
      SCRIPTED_AGENT_LOG: `${this.dir}/log.ndjson`,
    };
  }

  options(overrides: Partial<AcpOptions> = {}): AcpOptions {
    return { timeoutMs: 20_000, env: this.env, cwd: this.dir, ...overrides };
  }

  log(): LogLine[] {
    try {
      return Deno.readTextFileSync(`${this.dir}/log.ndjson`).trim().split("\n").filter(Boolean)
        .map((line) => JSON.parse(line));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
  }

  prompts(): LogLine[] {
    return this.log().filter((line) => line.type === "prompt");
  }

  pids(): number[] {
    return this.log().filter((line) => line.type === "start").map((line) => line.pid as number);
  }

  [Symbol.dispose](): void {
    Deno.removeSync(this.dir, { recursive: true });
  }
}

/** True while a process with this pid exists (a zombie counts: it was not reaped). */
function processExists(pid: number): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a reply streamed in many chunks is collected whole, and noise is ignored", async () => {
  using script = new Script([{ reply: "<memory_record>".repeat(40), chunks: 200, noise: true }]);
  const result = await runAcpPrompt(COMMAND, "frame <xml> & more", script.options());
  assert.equal(result.text, "<memory_record>".repeat(40));
  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.chars_sent, "frame <xml> & more".length);
  assert.equal(result.chars_received, result.text.length);
  // What crossed the pipe: the prompt and its framing plus the handshake one way; the reply
  // in 200 chunks, each a JSON-RPC notification, and the thoughts, plan and tool call the other.
  assert.ok(
    result.wire_bytes_sent > "frame <xml> & more".length + 100,
    `${result.wire_bytes_sent}`,
  );
  assert.ok(
    result.wire_bytes_received > result.text.length + 200 * 50,
    `${result.wire_bytes_received}`,
  );
  assert.equal(result.context_tokens, 4242);
  assert.ok(result.duration_ms >= 0);
  const prompts = script.prompts();
  assert.equal(prompts.length, 1);
  assert.equal(prompts[0].prompt, "frame <xml> & more");
  for (const pid of script.pids()) assert.ok(!processExists(pid), `pid ${pid} still exists`);
});

Deno.test("the agent sees KIRO_LEARN_INTERNAL=1 even when the caller's env says otherwise", async () => {
  using script = new Script([{ reply: "ok" }]);
  const env = { ...script.env, KIRO_LEARN_INTERNAL: "0" };
  await runAcpPrompt(COMMAND, "hi", script.options({ env }));
  assert.equal(script.prompts()[0].internal, "1");
});

Deno.test("successive calls are separate sessions taking successive steps", async () => {
  using script = new Script([{ reply: "first" }, { reply: "second", chunks: 3, delayMs: 5 }]);
  const a = await runAcpPrompt(COMMAND, "one", script.options());
  const b = await runAcpPrompt(COMMAND, "two", script.options());
  assert.deepEqual([a.text, b.text], ["first", "second"]);
  assert.deepEqual(script.prompts().map((p) => p.prompt), ["one", "two"]);
  assert.equal(new Set(script.pids()).size, 2);
});

Deno.test("a permission request is refused and the agent still replies", async () => {
  using script = new Script([{ requestPermission: true, reply: "done anyway" }]);
  const result = await runAcpPrompt(COMMAND, "x", script.options());
  assert.equal(result.text, "done anyway");
  const permission = script.log().find((line) => line.type === "permission");
  assert.deepEqual(permission?.outcome, { outcome: "selected", optionId: "reject" });
});

Deno.test("file-system requests are refused with an error", async () => {
  using script = new Script([{ readFile: "/etc/hostname", reply: "no files for me" }]);
  const result = await runAcpPrompt(COMMAND, "x", script.options());
  assert.equal(result.text, "no files for me");
  const fs = script.log().find((line) => line.type === "fs");
  assert.equal(fs?.ok, false);
  assert.equal(fs?.code, -32601);
});

Deno.test("a crash mid-stream rejects with the exit code and stderr, not a timeout", async () => {
  using script = new Script([{ crashAfterChunks: 3 }]);
  // The timeout is far away: had the client waited for it instead of noticing the exit, the
  // rejection would be an AcpTimeoutError and the instanceof check below would fail.
  const error = await runAcpPrompt(COMMAND, "x", script.options({ timeoutMs: 30_000 })).then(
    () => assert.fail("expected a rejection"),
    (e) => e,
  );
  assert.ok(error instanceof AcpExitError, String(error));
  assert.ok(!(error instanceof AcpTimeoutError));
  assert.equal(error.exitCode, 1);
  assert.match(error.message, /exited with code 1/);
  assert.match(error.message, /crashing mid-stream/);
  assert.match(error.stderrTail, /crashing mid-stream/);
  assert.equal(script.prompts().length, 1, "the crash came after the prompt was sent");
});

Deno.test("a child that exits before initialize is an exit error", async () => {
  using script = new Script([{ exitBeforeInitialize: true }]);
  await assert.rejects(
    runAcpPrompt(COMMAND, "x", script.options()),
    (error) =>
      error instanceof AcpExitError && error.exitCode === 3 &&
      /before initialize/.test(error.message),
  );
  assert.equal(script.prompts().length, 0);
});

Deno.test("a hang times out, and the child is gone afterwards", async () => {
  using script = new Script([{ hang: true }]);
  await assert.rejects(
    runAcpPrompt(COMMAND, "x", script.options({ timeoutMs: HANG_TIMEOUT_MS })),
    (error) =>
      error instanceof AcpTimeoutError && error.timeoutMs === HANG_TIMEOUT_MS &&
      error.phase === "session/prompt",
  );
  // It timed out waiting for the reply, after the agent had the prompt, not while starting.
  assert.deepEqual(script.prompts().map((p) => p.prompt), ["x"]);
  const [pid] = script.pids();
  assert.ok(pid > 0);
  assert.ok(!processExists(pid), `pid ${pid} still exists`);
});

Deno.test("a rejected request keeps the JSON-RPC error's data and the agent's stderr", async () => {
  using script = new Script([{
    rejectSessionNew: { details: "model claude-x is not available to this account" },
    stderr: "[agent] loading settings from ~/.claude: permission denied",
  }]);
  const error = await runAcpPrompt(COMMAND, "x".repeat(10_000), script.options()).then(
    () => assert.fail("expected a rejection"),
    (e) => e,
  );
  assert.ok(error instanceof AcpProtocolError, String(error));
  assert.match(error.message, /^agent rejected session\/new: Internal error/);
  assert.match(error.message, /details: .*model claude-x is not available to this account/);
  assert.match(error.message, /stderr: .*loading settings from ~\/\.claude: permission denied/);
  assert.deepEqual(error.data, { details: "model claude-x is not available to this account" });
  // What crossed before the refusal: the handshake both ways, never the prompt.
  assert.ok(error.spend.sent > 0 && error.spend.sent < 1000, `sent ${error.spend.sent}`);
  assert.ok(error.spend.received > 0, `received ${error.spend.received}`);
});

Deno.test("a timeout keeps what the agent wrote to stderr", async () => {
  using script = new Script([{ hang: true, stderr: "[agent] retrying the model: ECONNREFUSED" }]);
  const error = await runAcpPrompt(COMMAND, "x", script.options({ timeoutMs: HANG_TIMEOUT_MS }))
    .then(
      () => assert.fail("expected a rejection"),
      (e) => e,
    );
  assert.ok(error instanceof AcpTimeoutError, String(error));
  assert.match(
    error.message,
    new RegExp(`did not answer within ${HANG_TIMEOUT_MS} ms \\(waiting on session/prompt\\)`),
  );
  assert.match(error.message, /stderr: \[agent\] retrying the model: ECONNREFUSED/);
});

Deno.test("a child that ignores SIGTERM is killed with SIGKILL after the grace period", async () => {
  using script = new Script([{ hang: true, ignoreSigterm: true }]);
  await assert.rejects(
    runAcpPrompt(COMMAND, "x", script.options({ timeoutMs: HANG_TIMEOUT_MS, killGraceMs: 300 })),
    (error) => error instanceof AcpTimeoutError && error.phase === "session/prompt",
  );
  const [pid] = script.pids();
  assert.ok(!processExists(pid), `pid ${pid} still exists`);
  assert.ok(script.log().some((line) => line.type === "sigterm_ignored"));
});

Deno.test("a timeout ends the agent's whole process group, its own children too", async () => {
  using script = new Script([{ hang: true, grandchild: true }]);
  await assert.rejects(
    runAcpPrompt(COMMAND, "x", script.options({ timeoutMs: HANG_TIMEOUT_MS, killGraceMs: 500 })),
    (error) => error instanceof AcpTimeoutError && error.phase === "session/prompt",
  );
  const [pid] = script.pids();
  const grandchild = script.log().find((line) => line.type === "grandchild")?.pid as number;
  assert.ok(grandchild > 0, "the agent started its child before the timeout");
  // The agent led its own group (it is gone now, so its group id is its pid).
  assert.deepEqual(liveProcessGroup(pid), [], "processes of the agent's group survived");
  assert.ok(!processLives(grandchild), `the agent's child ${grandchild} survived the timeout`);
});

Deno.test("aborting the signal ends the agent's children too", async () => {
  using script = new Script([{ hang: true, grandchild: true }]);
  const controller = new AbortController();
  const call = runAcpPrompt(COMMAND, "x", script.options({ signal: controller.signal }));
  while (!script.log().some((line) => line.type === "grandchild")) {
    await new Promise((r) => setTimeout(r, 20));
  }
  controller.abort(new Error("shutting down"));
  await assert.rejects(call, /shutting down/);
  const [pid] = script.pids();
  const grandchild = script.log().find((line) => line.type === "grandchild")?.pid as number;
  assert.deepEqual(liveProcessGroup(pid), []);
  assert.ok(!processLives(grandchild), `the agent's child ${grandchild} survived the abort`);
});

Deno.test("aborting the signal rejects with its reason and kills the child", async () => {
  using script = new Script([{ hang: true }]);
  const controller = new AbortController();
  const reason = new Error("shutting down");
  const call = runAcpPrompt(COMMAND, "x", script.options({ signal: controller.signal }));
  while (script.prompts().length === 0) await new Promise((r) => setTimeout(r, 20));
  controller.abort(reason);
  await assert.rejects(call, (error) => error === reason);
  const [pid] = script.pids();
  assert.ok(!processExists(pid));
});

Deno.test("an already aborted signal rejects before anything is spawned", async () => {
  using script = new Script([{ reply: "never" }]);
  const reason = new Error("stop");
  await assert.rejects(
    runAcpPrompt(COMMAND, "x", script.options({ signal: AbortSignal.abort(reason) })),
    (error) => error === reason,
  );
  assert.equal(script.pids().length, 0);
});

Deno.test("a command that does not exist is an exit error with a clear message", async () => {
  const error = await runAcpPrompt(["kiro-cli-does-not-exist-here", "acp"], "x", {
    timeoutMs: 5000,
  }).then(() => assert.fail("expected a rejection"), (e) => e);
  assert.ok(error instanceof AcpExitError);
  assert.equal(
    error.message,
    "agent command not found: kiro-cli-does-not-exist-here — install it or set " +
      "extraction.agentCommand (a full path, or a name on the collector's PATH)",
  );
  assert.equal(error.exitCode, null);
});

Deno.test("a missing agent binary is reported as missing, even with a missing directory", async () => {
  // Both missing: the binary is what the user has to fix first.
  const error = await runAcpPrompt(["/nonexistent/kiro-learn/agent-bin"], "x", {
    timeoutMs: 5000,
    cwd: "/nonexistent/kiro-learn/dir",
  }).then(() => assert.fail("expected a rejection"), (e) => e);
  assert.ok(error instanceof AcpExitError);
  assert.match(error.message, /^agent command not found: \/nonexistent\/kiro-learn\/agent-bin/);
});

Deno.test("an empty command is an exit error", async () => {
  await assert.rejects(runAcpPrompt([], "x", { timeoutMs: 1000 }), AcpExitError);
});

Deno.test("a missing working directory is reported as such", async () => {
  await assert.rejects(
    runAcpPrompt(COMMAND, "x", { timeoutMs: 5000, cwd: "/nonexistent/kiro-learn/dir" }),
    (error) => error instanceof AcpExitError && /working directory not found/.test(error.message),
  );
});

Deno.test("an agent that is not ACP at all is a protocol or exit error, never a hang", async () => {
  // `cat` echoes our own requests back: the client sees requests it does not handle and never
  // gets a response, so only the timeout can end this.
  await assert.rejects(
    runAcpPrompt(["cat"], "x", { timeoutMs: 1000 }),
    (error) => error instanceof AcpTimeoutError || error instanceof AcpProtocolError,
  );
  // `true` exits at once without a word.
  await assert.rejects(
    runAcpPrompt(["true"], "x", { timeoutMs: 5000 }),
    (error) => error instanceof AcpExitError && error.exitCode === 0,
  );
});

Deno.test("the scripted agent is strict like a real agent", async () => {
  using script = new Script([{ reply: "unused" }]);
  const child = new Deno.Command(COMMAND[0], {
    args: COMMAND.slice(1),
    env: script.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  const receive = async (): Promise<{ id: number; result?: unknown; error?: { code: number } }> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("agent closed stdout");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return JSON.parse(line);
  };
  try {
    await send({
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: "/", mcpServers: [] },
    });
    assert.equal((await receive()).error?.code, -32600, "request before initialize");
    await send({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: 1 } });
    assert.ok((await receive()).result);
    await send({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: "/" } });
    assert.equal((await receive()).error?.code, -32602, "session/new without mcpServers");
    await send({
      jsonrpc: "2.0",
      id: 4,
      method: "session/prompt",
      params: { sessionId: "sess_made_up", prompt: [{ type: "text", text: "x" }] },
    });
    assert.ok((await receive()).error, "prompt with an unknown session id");
  } finally {
    await writer.close();
    await lines.cancel();
    await child.status;
  }
});
