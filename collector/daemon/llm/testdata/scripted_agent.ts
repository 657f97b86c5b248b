/**
 * A real ACP agent process for tests, built on the SDK's agent side over stdin/stdout, whose
 * behaviour follows a script instead of a model.
 *
 * Environment (or, in this order, the first three arguments, so that a collector that passes
 * the agent only an allowlisted environment can still run it):
 * - `SCRIPTED_AGENT_SCRIPT`: path of a JSON array of {@link Step}s;
 * - `SCRIPTED_AGENT_STATE`: path of a counter file; each process start takes the next step, so
 *   successive sessions (separate processes) play successive steps (the last step repeats);
 * - `SCRIPTED_AGENT_LOG`: path of a JSON-lines log: one `start` line per process, one `prompt`
 *   line per received prompt (its text, the `KIRO_LEARN_INTERNAL` value it saw and the names of
 *   every environment variable it got), and one
 *   line per permission or file-system answer it got.
 *
 * Like a real agent it rejects any request before `initialize`, rejects `session/new` without
 * `mcpServers`, and requires the session id it issued on `session/prompt`.
 *
 * @module
 */
import * as acp from "@agentclientprotocol/sdk";

/** One scripted session. */
export type Step =
  | {
    /** Text to stream as `agent_message_chunk` updates, then end the turn. */
    reply: string;
    /** How many chunks to split the reply into (default 1). */
    chunks?: number;
    /** Pause between chunks, in milliseconds. */
    delayMs?: number;
    /**
     * Before replying, wait until this file exists: a test holds the turn open for as long as
     * it needs (a pause of fixed length would race a loaded machine).
     */
    gate?: string;
    /**
     * Also send thoughts, a plan, a tool call and a usage update (4242 tokens used), which a
     * client must not mistake for reply.
     */
    noise?: boolean;
    /** Ask the client for permission before replying. */
    requestPermission?: boolean;
    /** Try to read this file through the client before replying. */
    readFile?: string;
  }
  | {
    /** Send this many chunks, then exit(1) mid-turn. */
    crashAfterChunks: number;
  }
  | {
    /** Never answer the prompt. */
    hang: true;
    /** Also ignore SIGTERM, so only SIGKILL ends the process. */
    ignoreSigterm?: boolean;
    /**
     * First start a child of its own (`sleep 300`, logged as a `grandchild` line with its pid),
     * as a real agent starts its model process and MCP servers.
     */
    grandchild?: boolean;
  }
  | {
    /** Exit(3) at once, before reading anything. */
    exitBeforeInitialize: true;
  }
  | {
    /** Reject `session/new` with an internal error carrying this `data` (the real cause). */
    rejectSessionNew: unknown;
  };

/** Every step may also write this to stderr when the process starts. */
export type StepWithStderr = Step & { stderr?: string };

const ARG_VARS = ["SCRIPTED_AGENT_SCRIPT", "SCRIPTED_AGENT_STATE", "SCRIPTED_AGENT_LOG"];

const env = (name: string) => {
  const index = ARG_VARS.indexOf(name);
  return (index >= 0 ? Deno.args[index] : undefined) ?? Deno.env.get(name);
};

function log(entry: Record<string, unknown>): void {
  const path = env("SCRIPTED_AGENT_LOG");
  if (path) Deno.writeTextFileSync(path, JSON.stringify(entry) + "\n", { append: true });
}

/** Takes the next step index from the counter file under an exclusive lock. */
async function takeStepIndex(path: string): Promise<number> {
  using file = await Deno.open(path, { read: true, write: true, create: true });
  await file.lock(true);
  try {
    const raw = new TextDecoder().decode(await readAll(file)).trim();
    const index = raw === "" ? 0 : Number(raw);
    await file.truncate(0);
    await file.seek(0, Deno.SeekMode.Start);
    await file.write(new TextEncoder().encode(String(index + 1)));
    return index;
  } finally {
    await file.unlock();
  }
}

async function readAll(file: Deno.FsFile): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const buffer = new Uint8Array(4096);
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    parts.push(buffer.slice(0, n));
  }
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function split(text: string, parts: number): string[] {
  const n = Math.max(1, Math.min(parts, text.length || 1));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const scriptPath = env("SCRIPTED_AGENT_SCRIPT");
  const statePath = env("SCRIPTED_AGENT_STATE");
  if (!scriptPath || !statePath) {
    console.error("scripted agent: SCRIPTED_AGENT_SCRIPT and SCRIPTED_AGENT_STATE are required");
    Deno.exit(2);
  }
  const steps = JSON.parse(Deno.readTextFileSync(scriptPath)) as StepWithStderr[];
  const index = await takeStepIndex(statePath);
  const step = steps[Math.min(index, steps.length - 1)];
  log({ type: "start", pid: Deno.pid, step: index });
  if (step.stderr) console.error(step.stderr);

  if ("exitBeforeInitialize" in step) {
    console.error("scripted agent: exiting before initialize, as scripted");
    Deno.exit(3);
  }
  if ("hang" in step && step.hang && step.ignoreSigterm) {
    Deno.addSignalListener("SIGTERM", () => log({ type: "sigterm_ignored" }));
  }

  const issued = new Set<string>();
  const app = acp.agent({ name: "scripted-agent" })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false },
      agentInfo: { name: "scripted-agent", version: "1.0.0" },
    }))
    .onRequest(acp.methods.agent.session.new, ({ params }) => {
      if ("rejectSessionNew" in step) throw acp.RequestError.internalError(step.rejectSessionNew);
      // The SDK's schema already requires these; checked again so the fake stays strict even
      // if a future SDK loosens its parsing.
      if (!Array.isArray(params.mcpServers)) {
        throw acp.RequestError.invalidParams(undefined, "mcpServers is required");
      }
      if (!params.cwd.startsWith("/")) {
        throw acp.RequestError.invalidParams(undefined, "cwd must be absolute");
      }
      const sessionId = `sess_${crypto.randomUUID()}`;
      issued.add(sessionId);
      return { sessionId };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      if (!issued.has(params.sessionId)) {
        throw acp.RequestError.resourceNotFound(params.sessionId);
      }
      const text = params.prompt.map((block) => block.type === "text" ? block.text : "").join("");
      log({
        type: "prompt",
        prompt: text,
        internal: env("KIRO_LEARN_INTERNAL") ?? null,
        env_names: Object.keys(Deno.env.toObject()).sort(),
      });
      const sessionId = params.sessionId;
      const say = (chunk: string) =>
        client.notify(acp.methods.client.session.update, {
          sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk } },
        });

      if ("crashAfterChunks" in step) {
        for (let i = 0; i < step.crashAfterChunks; i++) await say(`chunk ${i} `);
        console.error("scripted agent: crashing mid-stream, as scripted");
        Deno.exit(1);
      }
      if ("hang" in step) {
        if (step.grandchild) {
          const sleeper = new Deno.Command("sleep", {
            args: ["300"],
            stdin: "null",
            stdout: "null",
            stderr: "null",
          }).spawn();
          log({ type: "grandchild", pid: sleeper.pid });
        }
        await new Promise(() => {});
      }
      if (!("reply" in step)) throw acp.RequestError.internalError(undefined, "bad step");
      while (step.gate !== undefined && !exists(step.gate)) await sleep(20);

      if (step.requestPermission) {
        const answer = await client.request(acp.methods.client.session.requestPermission, {
          sessionId,
          toolCall: {
            toolCallId: "call_1",
            title: "Write notes.md",
            kind: "edit",
            status: "pending",
          },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        });
        log({ type: "permission", outcome: answer.outcome });
      }
      if (step.readFile) {
        try {
          await client.request(acp.methods.client.fs.readTextFile, {
            sessionId,
            path: step.readFile,
          });
          log({ type: "fs", ok: true });
        } catch (error) {
          const code = error instanceof acp.RequestError ? error.code : null;
          log({ type: "fs", ok: false, code });
        }
      }
      if (step.noise) {
        await client.notify(acp.methods.client.session.update, {
          sessionId,
          update: {
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: "THOUGHT" },
          },
        });
        await client.notify(acp.methods.client.session.update, {
          sessionId,
          update: {
            sessionUpdate: "plan",
            entries: [{ content: "PLAN", priority: "high", status: "pending" }],
          },
        });
        await client.notify(acp.methods.client.session.update, {
          sessionId,
          update: { sessionUpdate: "tool_call", toolCallId: "call_2", title: "TOOL" },
        });
        await client.notify(acp.methods.client.session.update, {
          sessionId,
          update: { sessionUpdate: "usage_update", used: 4242, size: 200_000 },
        });
      }
      for (const chunk of split(step.reply, step.chunks ?? 1)) {
        await say(chunk);
        if (step.delayMs) await sleep(step.delayMs);
      }
      return { stopReason: "end_turn" as const };
    })
    .onNotification(acp.methods.agent.session.cancel, () => {});

  const connection = app.connect(acp.ndJsonStream(Deno.stdout.writable, Deno.stdin.readable));
  await connection.closed;
  Deno.exit(0);
}

if (import.meta.main) await main();
