/**
 * A Claude Code turn's tool uses, read at the turn's end from the session's transcript instead of
 * one hook firing per tool call: Claude Code runs its hooks one after another, so every firing is
 * paid by the session (docs/benchmarks.md, the Claude Code benchmark: five tool calls cost +97 ms with the
 * tool hooks, +60 without). They become exactly
 * the events the tool hooks would have sent (`transcriptEvents`, the importer's conversion), with
 * ids derived from the transcript, so reading the same lines twice stores nothing twice.
 *
 * How far a session's transcript has been read is kept in the spool folder (the only place a
 * shim may write), one small file per session under a dot folder, which the spool's drain and
 * size count skip. A session seen for the first time is read from its current turn on: its
 * earlier turns are older than this install, or were recorded by an older install's tool hooks.
 *
 * @module
 */
import { CLAUDE_TOOL_HOOKS, type HookPlan } from "@kiro-learn/core/hooks";
import { note } from "./_stderr.ts";
import { transcriptEvents, type TranscriptPayload, transcriptPayloads } from "./claude_import.ts";
import type { PrecedingEvents } from "./run.ts";
import type { ShimConfig } from "./transport.ts";

/** The spool folder's dot folder holding how far each session's transcript has been read. */
export const TURN_STATE_DIR = ".turns";

/** The most of a transcript one turn's end reads (a turn's lines are far fewer). */
export const MAX_TURN_BYTES = 8 * 1024 * 1024;

/** A session's read mark is dropped this long after its last turn. */
export const TURN_STATE_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** The file holding how far `sessionId`'s transcript has been read. */
export function turnStatePath(spoolDir: string, sessionId: string): string {
  // The prefix keeps "." and ".." (and any dot name) from naming anything but a file of ours.
  return `${spoolDir}/${TURN_STATE_DIR}/s-${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}`;
}

function readMark(path: string): number | null {
  try {
    const text = Deno.readTextFileSync(path).trim();
    const mark = Number(text);
    return text !== "" && Number.isSafeInteger(mark) && mark >= 0 ? mark : null;
  } catch {
    return null;
  }
}

/** Writes a mark whole or not at all: another turn's end may be reading it. */
function writeMark(path: string, offset: number): void {
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    Deno.writeTextFileSync(temp, String(offset));
    Deno.renameSync(temp, path);
  } catch (error) {
    try {
      Deno.removeSync(temp);
    } catch {
      // Never written.
    }
    throw error;
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The complete lines of `file` from `from` on (at most the last {@linkcode MAX_TURN_BYTES}), each
 * with the offset it starts at.
 */
export async function readLines(
  file: string,
  from: number,
): Promise<{ lines: string[]; starts: number[]; end: number; skipped: number }> {
  using handle = await Deno.open(file, { read: true });
  const size = (await handle.stat()).size;
  // A mark past the end: the file was replaced; read it again from its start.
  const start = from > size ? 0 : from;
  const at = Math.max(start, size - MAX_TURN_BYTES);
  const bytes = new Uint8Array(size - at);
  await handle.seek(at, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < bytes.length) {
    const n = await handle.read(bytes.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  const decoder = new TextDecoder();
  const lines: string[] = [];
  const starts: number[] = [];
  // A cut start lands mid-line: that line is dropped. The last line may still be being written:
  // it is left for the next turn's end.
  let line = 0;
  if (at > start) {
    const first = bytes.indexOf(0x0a);
    line = first < 0 ? filled : first + 1;
  }
  for (let nl = bytes.indexOf(0x0a, line); nl >= 0 && nl < filled; nl = bytes.indexOf(0x0a, line)) {
    lines.push(decoder.decode(bytes.subarray(line, nl)));
    starts.push(at + line);
    line = nl + 1;
  }
  return { lines, starts, end: at + line, skipped: at - start };
}

function forget(dir: string, now: number): void {
  try {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      const modified = Deno.statSync(path).mtime?.getTime() ?? now;
      if (now - modified > TURN_STATE_MAX_AGE_MS) Deno.removeSync(path);
    }
  } catch {
    // Old marks only cost a few bytes each: never worth failing a hook for.
  }
}

/** One transcript file's part of a turn: its tool payloads and where its mark goes next. */
interface FileTurn {
  tools: TranscriptPayload[];
  markPath: string;
  next: number;
}

/**
 * Reads one transcript file from its mark. A session's main transcript without a mark is read
 * from its current turn on; a subagent's (`sidechains`), all of it new, whole.
 */
async function readFileTurn(
  file: string,
  options: { markPath: string; sessionId: string; sidechains: boolean },
): Promise<FileTurn> {
  const mark = readMark(options.markPath);
  const read = await readLines(file, mark ?? 0);
  if (mark !== null && read.skipped > 0) {
    note(
      `claude hook: ${read.skipped} bytes of ${file} were written since the last turn's end, more than one turn reads; their tool uses are not recorded (kiro-learn import claude-code can add them)`,
    );
  }
  const { payloads, pendingCalls = [] } = transcriptPayloads(read.lines, {
    sessionId: options.sessionId,
    sidechains: options.sidechains,
  });
  let from = 0;
  if (mark === null && !options.sidechains) {
    // A session seen for the first time: its current turn only.
    const prompt = payloads.findLastIndex((p) => p.payload.hook_event_name === "UserPromptSubmit");
    from = prompt + 1;
  }
  const tools = payloads.slice(from).filter((p) =>
    CLAUDE_TOOL_HOOKS.includes(String(p.payload.hook_event_name))
  );
  // A call whose result is not written yet holds the mark at its line: read there again, the
  // result has a call to match.
  const next = pendingCalls.length > 0 ? read.starts[Math.min(...pendingCalls)] : read.end;
  return { tools, markPath: options.markPath, next };
}

/** The transcripts of the session's subagents (`<session>/subagents/agent-*.jsonl`), if any. */
function subagentTranscripts(file: string): string[] {
  const dir = `${file.slice(0, -".jsonl".length)}/subagents`;
  try {
    return [...Deno.readDirSync(dir)]
      .filter((e) => e.isFile && e.name.endsWith(".jsonl"))
      .map((e) => `${dir}/${e.name}`)
      .sort();
  } catch {
    return [];
  }
}

/**
 * The tool uses of the turn that `plan` (a `Stop`) ends, from its transcript and its subagents'
 * (Claude Code keeps those beside it; the tool hooks fired for their calls too), in the order
 * they happened; or null when the plan names no transcript or it cannot be read (said on stderr;
 * the turn's end is still stored).
 */
export async function turnToolUses(
  plan: HookPlan,
  config: Pick<ShimConfig, "spoolDir" | "maxBodyBytes">,
): Promise<PrecedingEvents | null> {
  const file = plan.transcript;
  if (file === undefined) return null;
  if (!file.startsWith("/") || !file.endsWith(".jsonl")) {
    note(
      `claude hook: transcript path ${
        JSON.stringify(file.slice(0, 200))
      } is not an absolute path to a .jsonl file; the turn's tool uses are not recorded`,
    );
    return null;
  }
  const turns: FileTurn[] = [];
  try {
    turns.push(
      await readFileTurn(file, {
        markPath: turnStatePath(config.spoolDir, plan.sessionId),
        sessionId: plan.sessionId,
        sidechains: false,
      }),
    );
  } catch (error) {
    note(
      `claude hook: cannot read the transcript ${file} (${
        reason(error)
      }); the turn's tool uses are not recorded`,
    );
    return null;
  }
  for (const agent of subagentTranscripts(file)) {
    const name = agent.split("/").at(-1)!.slice(0, -".jsonl".length);
    try {
      turns.push(
        await readFileTurn(agent, {
          markPath: turnStatePath(config.spoolDir, `${plan.sessionId}.${name}`),
          sessionId: plan.sessionId,
          sidechains: true,
        }),
      );
    } catch (error) {
      note(
        `claude hook: cannot read the subagent transcript ${agent} (${
          reason(error)
        }); its tool uses are not recorded`,
      );
    }
  }
  const tools = turns.flatMap((t) => t.tools).sort((a, b) => a.time - b.time);
  const events = await transcriptEvents({ payloads: tools, skipped: {} }, {
    sessionId: plan.sessionId,
    maxBodyBytes: config.maxBodyBytes,
  });
  return {
    deliveries: events.map((event) => ({ event, query: "" })),
    delivered() {
      // Posted or spooled, or refused for good and said so: either way, not read again.
      const dir = `${config.spoolDir}/${TURN_STATE_DIR}`;
      try {
        Deno.mkdirSync(dir, { recursive: true });
        for (const turn of turns) writeMark(turn.markPath, turn.next);
      } catch (error) {
        note(
          `claude hook: cannot keep how far the transcript was read (${
            reason(error)
          }); the next turn reads it again (nothing is stored twice)`,
        );
      }
      forget(dir, Date.now());
    },
  };
}

/**
 * The tool uses of the turn that `plan` ends, from the agent's own file it names
 * (`plan.transcript`: Codex's rollout, Gemini CLI's chat file), read whole up to
 * {@linkcode MAX_TURN_BYTES} from its end and turned into payloads by `payloads`; null when there
 * is none or the file cannot be read (said on stderr as `label`'s, naming the file as `file`; the
 * turn's end is still stored).
 */
export async function fileTurnToolUses(
  plan: HookPlan,
  config: Pick<ShimConfig, "maxBodyBytes">,
  options: {
    label: string;
    file: string;
    surface: "codex" | "gemini-cli" | "copilot-cli";
    payloads: (lines: string[]) => TranscriptPayload[];
  },
): Promise<PrecedingEvents | null> {
  const path = plan.transcript;
  if (path === undefined) return null;
  if (!path.startsWith("/") || !/\.jsonl$/.test(path)) {
    note(
      `${options.label}: ${options.file} path ${
        JSON.stringify(path.slice(0, 200))
      } is not an absolute path to a .jsonl file; the turn's tool uses are not recorded`,
    );
    return null;
  }
  let lines: string[];
  try {
    lines = (await readLines(path, 0)).lines;
  } catch (error) {
    note(
      `${options.label}: cannot read the ${options.file} ${path} (${
        reason(error)
      }); the turn's tool uses are not recorded`,
    );
    return null;
  }
  const payloads = options.payloads(lines);
  if (payloads.length === 0) return null;
  const events = await transcriptEvents({ payloads, skipped: {} }, {
    sessionId: plan.sessionId,
    maxBodyBytes: config.maxBodyBytes,
    surface: options.surface,
  });
  return { deliveries: events.map((event) => ({ event, query: "" })), delivered() {} };
}
