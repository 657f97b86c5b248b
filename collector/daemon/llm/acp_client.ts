/**
 * A single-use ACP client: spawn the agent command, `initialize` → `session/new` → one
 * `session/prompt`, collect the reply text, kill the child.
 *
 * One process per call keeps model calls independent (no state leaks between extractions) and
 * makes cleanup deterministic: the agent runs as the leader of a process group of its own, and
 * whatever goes wrong, the whole group (the agent and whatever it started: a model process, MCP
 * servers) is signalled (SIGTERM, then SIGKILL) and the agent reaped before the call settles.
 * The timeout is raced against the prompt and against the child's exit, so a crash mid-turn
 * surfaces at once with its exit code and stderr tail.
 *
 * @module
 */
import * as acp from "@agentclientprotocol/sdk";
import { INTERNAL_ENV_VAR } from "@kiro-learn/core/api/wire";
import { commandPresence } from "@kiro-learn/core/launch";
import { VERSION } from "@kiro-learn/core/version";
import { resolve } from "node:path";
import type { SpendCarrier, WireSpend } from "./prompt_runner.ts";

/** What one prompt produced. */
export interface AcpResult {
  /** The concatenated text of the agent's `agent_message_chunk` updates. */
  text: string;
  /** Why the turn ended, as the agent reported it (`end_turn`, `max_tokens`, ...). */
  stopReason: string;
  /** Characters of prompt text sent. */
  chars_sent: number;
  /** Characters of reply text received. */
  chars_received: number;
  /**
   * Bytes (UTF-8) of every ACP message written to the agent: the handshake, `session/new` and
   * the prompt, with their JSON-RPC framing. What the agent adds on its own way to the model
   * (its system prompt, tool definitions) never crosses this pipe and is not in it.
   */
  wire_bytes_sent: number;
  /**
   * Bytes (UTF-8) of every ACP message read from the agent: the reply and everything else it
   * streamed (thoughts, plans, tool calls, usage updates).
   */
  wire_bytes_received: number;
  /**
   * Tokens in the model's context as the agent last reported them (ACP `usage_update.used`),
   * or null when the agent reported none. Counts what the agent itself added to the request.
   */
  context_tokens: number | null;
  /** Wall time from spawn to the reply, in milliseconds. */
  duration_ms: number;
}

/** Options for {@link runAcpPrompt}. */
export interface AcpOptions {
  /** Deadline for the whole call (spawn, handshake, prompt), in milliseconds. */
  timeoutMs: number;
  /** Extra environment for the child, on top of what it inherits (see `inheritEnv`). */
  env?: Record<string, string>;
  /**
   * The only variables of this process's environment the child inherits (exact names; one this
   * process may not read, or that is unset, is left out). Default: the whole environment.
   */
  inheritEnv?: readonly string[];
  /** The child's working directory and the session's `cwd` (default: this process's cwd). */
  cwd?: string;
  /** Aborting rejects the call with the signal's reason and kills the child. */
  signal?: AbortSignal;
  /** How long to wait after SIGTERM before SIGKILL, in milliseconds (default 2000). */
  killGraceMs?: number;
}

/** Default wait between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2000;

/**
 * The command that signals an agent's process group when this process may not (`Deno.kill`
 * needs an unrestricted `--allow-run`; the collector holds `--allow-run` for this command).
 */
export const KILL_COMMAND = "kill";

const STDERR_TAIL_BYTES = 4096;
// After the child exits, how long its already-written stdout may still be processed before the
// exit is reported as the outcome (a reply written just before a clean exit must still count).
const EXIT_SETTLE_MS = 250;
// How long to wait for the child's exit status / stderr EOF when building an error message.
const EXIT_REPORT_WAIT_MS = 1000;

// No file-system or terminal capability: the compressor and judge need neither, and an agent
// that asks anyway gets a refusal.
const INITIALIZE: acp.InitializeRequest = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: "kiro-learn", version: VERSION },
};

/**
 * `session/new`'s `_meta`: agents ignore what they do not know. `claude-code-acp` passes
 * `claudeCode.options` to Claude Code, and `persistSession: false` keeps it from saving the
 * session's transcript (`~/.claude/projects/<cwd>/<session>.jsonl`): a single-use session
 * holding other projects' observations has no business there.
 */
const SESSION_META = { claudeCode: { options: { persistSession: false } } };

/** Base class of every error {@link runAcpPrompt} throws (besides an abort reason). */
export class AcpError extends Error implements SpendCarrier {
  /**
   * Bytes (UTF-8) of ACP messages written to and read from the agent before the call failed,
   * counted as {@linkcode AcpResult}'s `wire_bytes_*` are: a session that died in the handshake
   * never sent its prompt, and one that timed out may have streamed part of a reply.
   */
  spend: WireSpend = { sent: 0, received: 0 };
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "AcpError";
  }
}

/** The agent did not answer within the timeout; the child was killed. */
export class AcpTimeoutError extends AcpError {
  /** The timeout that expired, in milliseconds. */
  readonly timeoutMs: number;
  /** The request in flight when it expired (`initialize`, `session/new`, `session/prompt`). */
  readonly phase: string;
  /** The last few KiB the agent wrote to stderr before it was killed. */
  readonly stderrTail: string;
  /** Creates the error. */
  constructor(timeoutMs: number, phase: string, stderrTail = "") {
    super(
      `agent did not answer within ${timeoutMs} ms (waiting on ${phase})` +
        (stderrTail ? `; stderr: ${stderrTail}` : ""),
    );
    this.name = "AcpTimeoutError";
    this.timeoutMs = timeoutMs;
    this.phase = phase;
    this.stderrTail = stderrTail;
  }
}

/** Details of an {@link AcpExitError}. */
export interface AcpExitDetails {
  /** Exit code, or null when the command never ran or was killed by a signal. */
  exitCode: number | null;
  /** The signal that ended the child, if any. */
  exitSignal: string | null;
  /** The last few KiB of the child's stderr. */
  stderrTail: string;
}

/** The agent command could not be started, or the child died before answering. */
export class AcpExitError extends AcpError {
  /** Exit code, or null when the command never ran or was killed by a signal. */
  readonly exitCode: number | null;
  /** The signal that ended the child, if any. */
  readonly exitSignal: string | null;
  /** The last few KiB of the child's stderr. */
  readonly stderrTail: string;
  /** Creates the error. */
  constructor(message: string, details: AcpExitDetails, options?: ErrorOptions) {
    super(message, options);
    this.name = "AcpExitError";
    this.exitCode = details.exitCode;
    this.exitSignal = details.exitSignal;
    this.stderrTail = details.stderrTail;
  }
}

/** The agent broke the protocol or rejected a request. */
export class AcpProtocolError extends AcpError {
  /** The JSON-RPC error code, when the agent answered with an error. */
  readonly code: number | undefined;
  /** The JSON-RPC error's `data` (where agents put the real cause), when there was one. */
  readonly data: unknown;
  /** The last few KiB the agent wrote to stderr. */
  readonly stderrTail: string;
  /** Creates the error. */
  constructor(
    message: string,
    code?: number,
    options?: ErrorOptions & { data?: unknown; stderrTail?: string },
  ) {
    super(message, options);
    this.name = "AcpProtocolError";
    this.code = code;
    this.data = options?.data;
    this.stderrTail = options?.stderrTail ?? "";
  }
}

/**
 * Runs one prompt through a fresh ACP agent process and returns its reply text.
 *
 * `command` is the agent's argv, for example `["kiro-cli", "acp", "--agent", "kiro-learn-compressor"]`.
 * The child gets `KIRO_LEARN_INTERNAL=1`. The client advertises no file-system or terminal
 * capability, refuses such requests, and refuses every permission request.
 *
 * @throws {AcpTimeoutError} when the deadline passes.
 * @throws {AcpExitError} when the command is missing or the child exits before answering.
 * @throws {AcpProtocolError} when the agent rejects a request or breaks the protocol.
 */
export async function runAcpPrompt(
  command: readonly string[],
  prompt: string,
  options: AcpOptions,
): Promise<AcpResult> {
  options.signal?.throwIfAborted();
  if (command.length === 0 || command[0] === "") {
    throw new AcpExitError("agent command is empty — set extraction.agentCommand", NO_EXIT);
  }
  const started = performance.now();
  const cwd = resolve(options.cwd ?? Deno.cwd());
  const child = spawn(command, cwd, options.env, options.inheritEnv);
  const stderr = collectTail(child.stderr, STDERR_TAIL_BYTES);
  let exitStatus: Deno.CommandStatus | undefined;
  const exited = child.status.then((status) => {
    exitStatus = status;
    return status;
  });

  const chunks: string[] = [];
  const usage: { contextTokens: number | null } = { contextTokens: null };
  let sessionId: string | undefined;
  let phase = "initialize";
  const wire = { sent: 0, received: 0 };
  const connection = clientApp(chunks, usage, () => sessionId)
    .connect(acp.ndJsonStream(
      countingWritable(child.stdin, (n) => wire.sent += n),
      child.stdout.pipeThrough(countingStream((n) => wire.received += n)),
    ));

  const work = (async () => {
    const init = await connection.agent.request(acp.methods.agent.initialize, INITIALIZE);
    if (init.protocolVersion !== acp.PROTOCOL_VERSION) {
      throw new AcpProtocolError(
        `agent speaks ACP protocol version ${init.protocolVersion}; kiro-learn speaks ${acp.PROTOCOL_VERSION}`,
      );
    }
    phase = "session/new";
    const session = await connection.agent.request(acp.methods.agent.session.new, {
      cwd,
      mcpServers: [],
      _meta: SESSION_META,
    });
    sessionId = session.sessionId;
    phase = "session/prompt";
    return await connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: prompt }],
    });
  })();

  const timers = new Timers();
  const stop = new AbortController();
  const childDied = exited.then(async (status) => {
    await timers.delay(EXIT_SETTLE_MS, stop.signal);
    throw exitError(command[0], status, await stderr.text(EXIT_REPORT_WAIT_MS, timers));
  });
  const timedOut = timers.delay(options.timeoutMs, stop.signal).then(() => {
    throw new AcpTimeoutError(options.timeoutMs, phase);
  });
  const aborted = options.signal ? abortPromise(options.signal, stop.signal) : NEVER;
  for (const p of [work, childDied, timedOut, aborted]) p.catch(() => {});

  try {
    const response = await Promise.race([work, childDied, timedOut, aborted]);
    // Notification handlers run a few microtasks behind the response they precede; one
    // macrotask lets the last chunks land before the text is read.
    await timers.delay(0);
    const text = chunks.join("");
    return {
      text,
      stopReason: String(response.stopReason),
      chars_sent: prompt.length,
      chars_received: text.length,
      wire_bytes_sent: wire.sent,
      wire_bytes_received: wire.received,
      context_tokens: usage.contextTokens,
      duration_ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    const failure = await classify(error, {
      phase,
      signal: options.signal,
      program: command[0],
      exited,
      exitStatus: () => exitStatus,
      stderr,
      timers,
    });
    if (failure instanceof AcpError) failure.spend = { sent: wire.sent, received: wire.received };
    throw failure;
  } finally {
    stop.abort();
    connection.close();
    await terminate(child, exited, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS, timers);
    await closeQuietly(child.stdin);
    await stderr.stop();
    timers.clearAll();
  }
}

const NO_EXIT: AcpExitDetails = { exitCode: null, exitSignal: null, stderrTail: "" };
const NEVER = new Promise<never>(() => {});

/** The values of `names` in this process's environment (unset or unreadable ones left out). */
export function pickEnv(names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) picked[name] = value;
    } catch {
      // Not readable by this process (not in its --allow-env): the agent does not get it.
    }
  }
  return picked;
}

function spawn(
  command: readonly string[],
  cwd: string,
  env: Record<string, string> | undefined,
  inheritEnv: readonly string[] | undefined,
): Deno.ChildProcess {
  const program = command[0];
  try {
    return new Deno.Command(program, {
      args: command.slice(1),
      cwd,
      clearEnv: inheritEnv !== undefined,
      env: { ...(inheritEnv ? pickEnv(inheritEnv) : {}), ...env, [INTERNAL_ENV_VAR]: "1" },
      // A process group of its own (on Unix the child calls setsid), so that the agent's own
      // children can be signalled with it, and a Ctrl-C meant for the collector skips it.
      detached: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    const notFound =
      `agent command not found: ${program} — install it or set extraction.agentCommand ` +
      "(a full path, or a name on the collector's PATH)";
    if (error instanceof Deno.errors.NotFound) {
      // The program or the working directory: the program is the likelier, so it is checked
      // first; only a directory known to be missing is blamed.
      if (commandPresence(program, { cwd }) === false) {
        throw new AcpExitError(notFound, NO_EXIT, { cause: error });
      }
      if (pathMissing(cwd)) {
        throw new AcpExitError(`agent working directory not found: ${cwd}`, NO_EXIT, {
          cause: error,
        });
      }
      throw new AcpExitError(notFound, NO_EXIT, { cause: error });
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      // The collector may run only the agent commands its launcher found when it started.
      const exists = commandPresence(program, { cwd });
      const missing = exists === false ? `${notFound}; ` : "";
      throw new AcpExitError(
        `${missing}not allowed to run the agent command ${program}: the collector may run only ` +
          "the agent commands it found when it started — install the agent or fix " +
          "extraction.agentCommand, then restart the collector (kiro-learn stop; kiro-learn " +
          `start) (${messageOf(error)})`,
        NO_EXIT,
        { cause: error },
      );
    }
    throw new AcpExitError(
      `could not start the agent command ${program}: ${messageOf(error)}`,
      NO_EXIT,
      {
        cause: error,
      },
    );
  }
}

/** True when nothing is at `path`, false when something is, undefined when we may not look. */
function pathMissing(path: string): boolean | undefined {
  try {
    Deno.statSync(path);
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return true;
    }
    return undefined;
  }
}

/** The client side: collects reply text, refuses everything that would act on the machine. */
function clientApp(
  chunks: string[],
  usage: { contextTokens: number | null },
  currentSession: () => string | undefined,
): acp.ClientApp {
  const refuse = (what: string) => () => {
    throw new acp.RequestError(-32601, `kiro-learn's ACP client does not offer ${what}`);
  };
  return acp.client({ name: "kiro-learn" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const update = params.update;
      if (params.sessionId !== currentSession()) return;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        chunks.push(update.content.text);
      } else if (update.sessionUpdate === "usage_update" && Number.isFinite(update.used)) {
        usage.contextTokens = Math.max(usage.contextTokens ?? 0, update.used);
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      // The compressor and judge have no tools; a permission request means a misconfigured
      // agent, and the safe answer is always no.
      const reject = params.options.find((option) => option.kind === "reject_once") ??
        params.options.find((option) => option.kind === "reject_always");
      return reject
        ? { outcome: { outcome: "selected", optionId: reject.optionId } }
        : { outcome: { outcome: "cancelled" } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, refuse("file reads"))
    .onRequest(acp.methods.client.fs.writeTextFile, refuse("file writes"))
    .onRequest(acp.methods.client.terminal.create, refuse("terminals"))
    .onRequest(acp.methods.client.terminal.output, refuse("terminals"))
    .onRequest(acp.methods.client.terminal.release, refuse("terminals"))
    .onRequest(acp.methods.client.terminal.waitForExit, refuse("terminals"))
    .onRequest(acp.methods.client.terminal.kill, refuse("terminals"))
    .onRequest(acp.methods.client.elicitation.create, refuse("elicitation"));
}

interface ClassifyContext {
  phase: string;
  signal: AbortSignal | undefined;
  program: string;
  exited: Promise<Deno.CommandStatus>;
  exitStatus: () => Deno.CommandStatus | undefined;
  stderr: TailCollector;
  timers: Timers;
}

/** Turns whatever ended the race into one of the typed errors. */
async function classify(error: unknown, context: ClassifyContext): Promise<unknown> {
  // One macrotask, so stderr the agent wrote before it answered has been read.
  await context.timers.delay(0);
  if (error instanceof AcpTimeoutError) {
    return new AcpTimeoutError(error.timeoutMs, error.phase, context.stderr.now());
  }
  if (error instanceof AcpError) return error;
  if (error instanceof acp.RequestError) {
    const stderrTail = context.stderr.now();
    const data = error.data === undefined ? "" : `; details: ${clip(jsonOf(error.data), 2000)}`;
    const tail = stderrTail ? `; stderr: ${stderrTail}` : "";
    return new AcpProtocolError(
      `agent rejected ${context.phase}: ${error.message} (code ${error.code})${data}${tail}`,
      error.code,
      { cause: error, data: error.data, stderrTail },
    );
  }
  // An abort passes its reason through untouched, as fetch and the streams API do.
  if (context.signal?.aborted && error === context.signal.reason) return error;
  // The connection closed or the stream broke: almost always because the child died. Wait
  // briefly for its status so the error can carry the exit code and stderr.
  const status = context.exitStatus() ??
    await Promise.race([context.exited, context.timers.delay(EXIT_REPORT_WAIT_MS)]);
  if (status) {
    const tail = await context.stderr.text(EXIT_REPORT_WAIT_MS, context.timers);
    return exitError(context.program, status, tail, error);
  }
  return new AcpProtocolError(
    `ACP connection failed during ${context.phase}: ${messageOf(error)}`,
    undefined,
    { cause: error },
  );
}

function abortPromise(signal: AbortSignal, stop: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    stop.addEventListener("abort", () => signal.removeEventListener("abort", onAbort), {
      once: true,
    });
  });
}

function exitError(
  program: string,
  status: Deno.CommandStatus,
  stderrTail: string,
  cause?: unknown,
): AcpExitError {
  const how = status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
  const tail = stderrTail ? `; stderr: ${stderrTail}` : "";
  return new AcpExitError(
    `agent ${program} ${how} before answering${tail}`,
    { exitCode: status.signal ? null : status.code, exitSignal: status.signal, stderrTail },
    cause === undefined ? undefined : { cause },
  );
}

/**
 * SIGTERM to the agent's whole process group, then SIGKILL to the group once the agent exited or
 * the grace period passed (its children may outlive it); always waits for the agent's exit so no
 * zombie stays.
 */
async function terminate(
  child: Deno.ChildProcess,
  exited: Promise<Deno.CommandStatus>,
  graceMs: number,
  timers: Timers,
): Promise<void> {
  let done = false;
  exited.then(() => done = true, () => done = true);
  await timers.delay(0);
  // Even when the agent is already gone: what it started may still be running in its group.
  await signalGroup(child, "SIGTERM");
  if (!done) await Promise.race([exited, timers.delay(graceMs)]);
  await signalGroup(child, "SIGKILL");
  await exited;
}

/**
 * Signals the process group the agent leads. `Deno.kill` on a negative pid needs an unrestricted
 * `--allow-run`; the collector runs with a narrow one that includes {@linkcode KILL_COMMAND}, so
 * that is the fallback. Without either, only the agent itself is signalled.
 */
async function signalGroup(child: Deno.ChildProcess, signal: Deno.Signal): Promise<void> {
  if (Deno.build.os === "windows") return signalChild(child, signal);
  try {
    Deno.kill(-child.pid, signal);
    return;
  } catch (error) {
    // ESRCH: nobody is left in the group.
    if (error instanceof Deno.errors.NotFound) return;
    if (
      !(error instanceof Deno.errors.NotCapable) &&
      !(error instanceof Deno.errors.PermissionDenied)
    ) {
      return signalChild(child, signal);
    }
  }
  try {
    const { code } = await new Deno.Command(KILL_COMMAND, {
      args: ["-s", signal.replace(/^SIG/, ""), "--", `-${child.pid}`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    // 1: no such process group (already empty), which is success here.
    if (code === 0 || code === 1) return;
  } catch {
    // Not allowed to run it, or not installed.
  }
  signalChild(child, signal);
}

function signalChild(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // Already exited between the check and the kill.
  }
}

/** Counts the bytes passing through. */
function countingStream(count: (bytes: number) => void): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(chunk, controller) {
      count(chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
}

/** A writable in front of `target` that counts the bytes written to it. */
function countingWritable(
  target: WritableStream<Uint8Array>,
  count: (bytes: number) => void,
): WritableStream<Uint8Array> {
  const writer = target.getWriter();
  return new WritableStream({
    async write(chunk) {
      await writer.write(chunk);
      count(chunk.byteLength);
    },
    async close() {
      await writer.close();
    },
    async abort(reason) {
      await writer.abort(reason);
    },
  });
}

async function closeQuietly(stream: WritableStream<Uint8Array>): Promise<void> {
  try {
    if (!stream.locked) await stream.close();
  } catch {
    // The pipe is already broken because the child is gone; nothing left to flush.
  }
}

interface TailCollector {
  /** The tail so far, once stderr ended or `waitMs` passed. */
  text(waitMs: number, timers: Timers): Promise<string>;
  /** The tail so far, without waiting. */
  now(): string;
  /** Stops reading (a grandchild may hold stderr open after the child is gone). */
  stop(): Promise<void>;
}

/** Keeps the last `maxBytes` of a stream, for error messages. */
function collectTail(stream: ReadableStream<Uint8Array>, maxBytes: number): TailCollector {
  const reader = stream.getReader();
  let buffer = new Uint8Array(0);
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const joined = new Uint8Array(buffer.length + value.length);
        joined.set(buffer);
        joined.set(value, buffer.length);
        buffer = joined.length > maxBytes ? joined.slice(joined.length - maxBytes) : joined;
      }
    } catch {
      // Cancelled or broken: keep what we have.
    }
  })();
  return {
    async text(waitMs, timers) {
      await Promise.race([done, timers.delay(waitMs)]);
      return new TextDecoder().decode(buffer).trim();
    },
    now: () => new TextDecoder().decode(buffer).trim(),
    async stop() {
      await reader.cancel().catch(() => {});
      await done;
    },
  };
}

/** Cancellable timers, all cleared when the call settles so none outlives it. */
class Timers {
  #ids = new Set<ReturnType<typeof setTimeout>>();

  /** Resolves after `ms` (never, once `cancel` aborts). */
  delay(ms: number, cancel?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (cancel?.aborted) return;
      const id = setTimeout(() => {
        this.#ids.delete(id);
        resolve();
      }, ms);
      this.#ids.add(id);
      cancel?.addEventListener("abort", () => {
        clearTimeout(id);
        this.#ids.delete(id);
      }, { once: true });
    });
  }

  /** Clears every pending timer. */
  clearAll(): void {
    for (const id of this.#ids) clearTimeout(id);
    this.#ids.clear();
  }
}

function jsonOf(value: unknown): string {
  try {
    return typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
