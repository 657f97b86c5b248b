/**
 * The heuristic extractor: deterministic records from tool names, paths, commands, failures and
 * turn summaries, with no LLM. The default when no ACP agent is installed, and the fallback when
 * the day's LLM budget is spent.
 *
 * @module
 */
import { type QueueEntry, RECORD_LIMITS } from "@kiro-learn/core/schemas";
import { isTrivialEntry, type ParsedRecord } from "@kiro-learn/core/xml";
import { tellingErrorLine } from "@kiro-learn/core/error_line";

const EDIT_TOOL =
  /^(?:fs_write|fswrite|write|edit|multiedit|str_?replace|create|apply_?patch|notebookedit|edit_?file|write_?file|fs_append|insert)$/i;
const READ_TOOL = /^(?:fs_read|fsread|read|read_?file|view|open_?file|cat)$/i;
const SHELL_TOOL =
  /^(?:execute_?bash|bash|shell|execute_?pwsh|run_?terminal_?cmd|run_?command|execute_?command|terminal)$/i;
/**
 * What Kiro IDE tools say in prose (their input is often empty): "Replaced text in src/a.ts",
 * "Created the test/cart/total.test.ts file.", "Wrote to a.md", "Appended text to b.ts",
 * "Edited c.ts", "Deleted the d.ts file.". Group 1 is the verb, group 2 the path.
 */
const PROSE_EDIT =
  /\b(Replaced text in|Created|Wrote(?: to)?|Edited|Updated|Appended (?:text |content )?to|Deleted)\s+(?:the\s+)?(?:file\s+)?[`'"]?([^\s`'"]+?)[`'"]?(?:\s+file)?[.,;:]?(?=\s|$)/i;
const PROSE_OPS: Readonly<Record<string, string>> = {
  replaced: "str_replace",
  created: "create",
  wrote: "write",
  edited: "edit",
  updated: "edit",
  appended: "append",
  deleted: "delete",
};
/** Prose of a shell tool: "Output: … Exit Code: N" (Kiro IDE). */
const PROSE_COMMAND = /(?:^|\n)\s*Output:|Exit Code:\s*-?\d+/i;

interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  response: unknown;
  failed: boolean;
  errorText?: string;
  prose: string;
}

interface Turn {
  prompt?: string;
  summary?: string;
  edits: { path: string; op: string; detail?: string }[];
  reads: string[];
  commands: { command: string; failed: boolean; exit?: string; errorLine?: string }[];
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value) ?? "";
}

function bodyText(entry: QueueEntry): string {
  const body = entry.body;
  if (body.type === "text") return body.content;
  if (body.type === "message") return body.turns.map((t) => t.content).join("\n");
  return text(body.data);
}

function toolCall(entry: QueueEntry): ToolCall | null {
  if (entry.body.type !== "json") return null;
  const data = asObject(entry.body.data);
  const tool = typeof data.tool_name === "string" ? data.tool_name.split("/").at(-1)! : "unknown";
  const input = asObject(data.tool_input);
  const response = data.tool_response;
  // Kiro wraps a command's outcome in `result: [{exit_status, stdout, stderr}]`.
  const outer = asObject(response);
  const inner = Array.isArray(outer.result) ? asObject(outer.result[0]) : {};
  const res: Record<string, unknown> = { ...outer, ...inner };
  const exit = res.exit_status ?? res.exitCode ?? res.exit_code;
  const prose = proseOf(response);
  const proseExit = /Exit Code:\s*(-?\d+)/i.exec(prose)?.[1];
  const failed = data.failed === true || res.success === false || typeof data.error === "string" ||
    (exit !== undefined && String(exit) !== "0") || (proseExit !== undefined && proseExit !== "0");
  // All the output, so the most telling line can be picked (the assertion, not the summary).
  const errorText = [data.error, res.error, res.stderr, res.stdout, prose || outer.result]
    .map(text).filter((t) => t.trim() !== "").join("\n");
  return { tool, input, response, failed, errorText, prose };
}

/** The prose a tool answered with: the response itself, or its `result` (Kiro IDE 0.x). */
function proseOf(response: unknown): string {
  if (typeof response === "string") return response;
  const result = asObject(response).result;
  if (typeof result === "string") return result;
  if (Array.isArray(result) && result.every((r) => typeof r === "string")) return result.join("\n");
  return "";
}

/** The file a prose result names, when it looks like a path (has a `/` or an extension). */
function proseEdit(prose: string): { path: string; op: string } | null {
  const match = PROSE_EDIT.exec(prose);
  if (match === null) return null;
  const path = match[2].replace(/[.,;:]+$/, "");
  if (!/[\\/]/.test(path) && !/\.\w{1,8}$/.test(path)) return null;
  return { path, op: PROSE_OPS[match[1].split(/\s/)[0].toLowerCase()] ?? "edit" };
}

function pathsOf(input: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of ["path", "file_path", "filePath", "target_file", "notebook_path", "file"]) {
    if (typeof input[key] === "string") out.push(input[key] as string);
  }
  if (Array.isArray(input.operations)) {
    for (const op of input.operations) {
      const p = asObject(op).path;
      if (typeof p === "string") out.push(p);
    }
  }
  if (Array.isArray(input.paths)) out.push(...input.paths.filter((p) => typeof p === "string"));
  return out;
}

function errorLineOf(textValue: string | undefined): string | undefined {
  if (!textValue) return undefined;
  const line = tellingErrorLine(textValue.replace(/^\s*Output:\s*/i, ""));
  return line === "" ? undefined : line.slice(0, 300);
}

function basename(path: string): string {
  return path.split(/[\\/]/).at(-1) ?? path;
}

function listNames(paths: string[], max = 3): string {
  const names = [...new Set(paths.map(basename))];
  if (names.length <= max) {
    return names.length <= 1
      ? names.join("")
      : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  }
  return `${names.slice(0, max).join(", ")} and ${names.length - max} more`;
}

function clip(value: string, max: number): string {
  const flat = value.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + "…";
}

function concepts(turn: Turn): string[] {
  const out = new Set<string>();
  for (const p of [...turn.edits.map((e) => e.path), ...turn.reads]) {
    const stem = basename(p).replace(/\.[^.]+$/, "");
    if (stem) out.add(stem.slice(0, RECORD_LIMITS.concept));
  }
  for (const c of turn.commands) {
    const program = c.command.trim().split(/\s+/)[0];
    if (program) out.add(program.slice(0, RECORD_LIMITS.concept));
  }
  return [...out].slice(0, 10);
}

function splitTurns(entries: readonly QueueEntry[]): Turn[] {
  const turns: Turn[] = [];
  let turn: Turn = { edits: [], reads: [], commands: [] };
  const hasContent = (t: Turn) =>
    t.prompt !== undefined || t.summary !== undefined || t.edits.length > 0 ||
    t.reads.length > 0 || t.commands.length > 0;
  for (const entry of entries) {
    if (entry.kind === "prompt") {
      if (hasContent(turn)) turns.push(turn);
      turn = { prompt: bodyText(entry), edits: [], reads: [], commands: [] };
    } else if (entry.kind === "session_summary") {
      turn.summary = [turn.summary, bodyText(entry)].filter(Boolean).join("\n\n");
      turns.push(turn);
      turn = { edits: [], reads: [], commands: [] };
    } else if (entry.kind === "tool_use") {
      const call = toolCall(entry);
      if (!call) continue;
      const name = call.tool.replace(/^@[^/]+\//, "");
      const fromProse = proseEdit(call.prose);
      const command = text(call.input.command ?? call.input.cmd).trim();
      if (
        EDIT_TOOL.test(name) ||
        (typeof call.input.command === "string" && pathsOf(call.input).length > 0 &&
          /create|str_replace|insert|append/.test(call.input.command)) ||
        (fromProse !== null && !SHELL_TOOL.test(name))
      ) {
        for (const path of pathsOf(call.input)) {
          const op = typeof call.input.command === "string" ? call.input.command : name;
          const oldStr = text(call.input.old_str ?? call.input.old_string ?? call.input.oldStr);
          const newStr = text(call.input.new_str ?? call.input.new_string ?? call.input.newStr);
          const detail = oldStr && newStr
            ? `${op} in ${path}: \`${clip(oldStr, 80)}\` → \`${clip(newStr, 80)}\``
            : `${op} ${path}`;
          turn.edits.push({ path, op, detail });
        }
        if (fromProse !== null && pathsOf(call.input).length === 0) {
          turn.edits.push({ ...fromProse, detail: `${fromProse.op} ${fromProse.path}` });
        }
      } else if (SHELL_TOOL.test(name) || PROSE_COMMAND.test(call.prose)) {
        // Kiro IDE 0.x often sends no arguments: the command is then unknown, not absent.
        if (command === "" && !call.failed && call.prose === "") continue;
        const outer = asObject(call.response);
        const inner = Array.isArray(outer.result) ? asObject(outer.result[0]) : {};
        const exit = inner.exit_status ?? outer.exit_status ?? outer.exitCode ??
          /Exit Code:\s*(-?\d+)/i.exec(call.prose)?.[1];
        turn.commands.push({
          command,
          failed: call.failed,
          exit: exit === undefined ? undefined : String(exit),
          errorLine: call.failed ? errorLineOf(call.errorText) : undefined,
        });
      } else if (READ_TOOL.test(name)) {
        turn.reads.push(...pathsOf(call.input));
      }
    } else if (entry.kind === "note" && !isTrivialEntry(entry)) {
      turn.summary = [turn.summary, bodyText(entry)].filter(Boolean).join("\n\n");
    }
  }
  if (hasContent(turn)) turns.push(turn);
  return turns;
}

function record(
  fields: Omit<ParsedRecord, "facts" | "concepts" | "files_touched"> & Partial<ParsedRecord>,
): ParsedRecord {
  const unique = (xs: string[] | undefined, max: number, each: number) =>
    [...new Set((xs ?? []).map((x) => x.slice(0, each)).filter((x) => x.trim() !== ""))]
      .slice(0, max);
  return {
    observation_type: fields.observation_type,
    title: clip(fields.title, RECORD_LIMITS.title),
    summary: fields.summary.slice(0, RECORD_LIMITS.summary),
    facts: unique(fields.facts, RECORD_LIMITS.facts, RECORD_LIMITS.fact),
    concepts: unique(fields.concepts, RECORD_LIMITS.concepts, RECORD_LIMITS.concept),
    files_touched: unique(fields.files_touched, RECORD_LIMITS.files, RECORD_LIMITS.file),
  };
}

function turnRecords(turn: Turn): ParsedRecord[] {
  const out: ParsedRecord[] = [];
  // The prompt itself is stored as an event and never repeated inside a record.
  const request = turn.prompt ? clip(turn.prompt, 200) : undefined;
  const editedPaths = [...new Set(turn.edits.map((e) => e.path))];
  const touched = [...new Set([...editedPaths, ...turn.reads])];
  const tags = concepts(turn);

  // A command the agent did not name (Kiro IDE 0.x sends no arguments) is told apart by its
  // error line; a later unnamed command that succeeds counts as the same run passing.
  const keyOf = (c: (typeof turn.commands)[number]) =>
    c.command !== "" ? c.command : c.failed ? `\u0000${c.errorLine ?? ""}` : "\u0000";
  const failures = new Map<string, (typeof turn.commands)[number]>();
  const fixed = new Set<string>();
  for (const c of turn.commands) {
    if (c.failed) failures.set(keyOf(c), c);
    else if (c.command === "") {
      for (const key of failures.keys()) if (key.startsWith("\u0000")) fixed.add(key);
    } else if (failures.has(c.command)) fixed.add(c.command);
  }
  for (const [key, c] of failures) {
    const command = c.command;
    const named = command !== "";
    const what = named ? `\`${clip(command, 300)}\`` : "A shell command";
    out.push(record({
      observation_type: "error",
      title: named
        ? `Command failed: ${clip(command, 120)}`
        : `Command failed: ${clip(c.errorLine ?? `exit status ${c.exit ?? "non-zero"}`, 120)}`,
      summary: `${what} failed${c.exit ? ` with exit status ${c.exit}` : ""}${
        c.errorLine ? `: ${c.errorLine}` : "."
      }`,
      facts: [
        ...(named ? [`command: ${clip(command, 400)}`] : []),
        ...(c.errorLine ? [`error: ${c.errorLine}`] : []),
      ],
      concepts: tags,
      files_touched: editedPaths,
    }));
    if (fixed.has(key)) {
      const changed = editedPaths.length > 0 ? ` after editing ${listNames(editedPaths)}` : "";
      out.push(record({
        observation_type: "discovery",
        title: named
          ? `${clip(command, 100)} passes${changed}`
          : `Failing command passes${changed}`,
        summary: `${what} failed${
          c.errorLine ? ` (${c.errorLine})` : ""
        } and then passed${changed}.`,
        facts: turn.edits.map((e) => e.detail ?? `${e.op} ${e.path}`),
        concepts: tags,
        files_touched: editedPaths,
      }));
    }
  }
  if (editedPaths.length > 0) {
    const ops = [...new Set(turn.edits.map((e) => e.op))].join(", ");
    out.push(record({
      observation_type: "tool_use",
      title: `${turn.edits.every((e) => e.op === "create") ? "Created" : "Edited"} ${
        listNames(editedPaths)
      }`,
      summary: `Edited ${editedPaths.join(", ")} (${ops}).${
        turn.reads.length > 0 ? ` Read ${listNames(turn.reads, 6)} first.` : ""
      }`,
      facts: [
        ...turn.edits.map((e) => e.detail ?? `${e.op} ${e.path}`),
        ...(turn.reads.length > 0 ? [`read: ${turn.reads.slice(0, 20).join(", ")}`] : []),
      ],
      concepts: tags,
      files_touched: touched,
    }));
  }
  if (turn.summary && turn.summary.trim() !== "") {
    const firstSentence = turn.summary.trim().split(/(?<=[.!?])\s+|\n/)[0];
    out.push(record({
      observation_type: "session_summary",
      title: clip(firstSentence, 200),
      summary: turn.summary.trim(),
      facts: turn.commands.filter((c) => c.command !== "").map((c) =>
        `${c.failed ? "failed" : "ran"}: ${clip(c.command, 200)}`
      ),
      concepts: tags,
      files_touched: touched,
    }));
  } else if (out.length === 0 && request && turn.reads.length > 0) {
    out.push(record({
      observation_type: "tool_use",
      title: `Read ${listNames(turn.reads)}`,
      summary: `Read ${turn.reads.join(", ")}.`,
      concepts: tags,
      files_touched: turn.reads,
    }));
  }
  return out;
}

/** Extracts records from a batch of queue entries, deterministically. */
export function extractHeuristic(entries: readonly QueueEntry[]): ParsedRecord[] {
  return splitTurns(entries).flatMap(turnRecords);
}
