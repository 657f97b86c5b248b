/**
 * Framing queue entries for the compressor: one `<tool_observation>` element per entry, and
 * chunking a batch so no prompt exceeds a byte cap.
 *
 * Unlike kiro-learn, the event kind is framed (as an attribute and as a descriptive tool name),
 * so the model can tell a user prompt or a turn summary from a tool call; lifecycle notes and
 * empty bodies can be filtered out with {@link isTrivialEntry}; and batches are chunked.
 *
 * @module
 */
import { type QueueEntry, TRUNCATION_MARKER } from "../schemas/mod.ts";
import { escapeXml } from "./escape.ts";
import { truncateChars, utf8Length } from "./text.ts";

/** Longest tool name framed, in characters; real tool names are far shorter. */
export const MAX_TOOL_NAME_CHARS = 128;

/**
 * Smallest cap {@link chunkEntries} honours, in bytes: room for the element skeleton, the
 * longest tool name and timestamp, and the truncation markers.
 */
export const MIN_CHUNK_CAP_BYTES = 2048;

const MAX_TIMESTAMP_CHARS = 64;

/** The tool name framed for entries whose body does not name a tool. */
const KIND_TOOL_NAMES: Record<QueueEntry["kind"], string> = {
  prompt: "user_prompt",
  tool_use: "tool_use",
  session_summary: "turn_summary",
  note: "note",
};

/** The parts of a framed entry, before escaping. */
interface FrameParts {
  kind: string;
  toolName: string;
  timestamp: string;
  input: string;
  output: string | undefined;
  failed: boolean;
}

/**
 * Frames one queue entry as a `<tool_observation kind="...">` element. Every value taken from the
 * event is escaped, so no event text can open or close a tag.
 */
export function frameEntry(entry: QueueEntry): string {
  return renderFrame(frameParts(entry));
}

/**
 * True for entries not worth sending to the model: bodies with no content, and lifecycle notes
 * such as "session started".
 */
export function isTrivialEntry(entry: QueueEntry): boolean {
  const body = entry.body;
  if (isEmptyBody(body)) return true;
  if (entry.kind !== "note") return false;
  const text = body.type === "text"
    ? body.content
    : body.type === "message"
    ? body.turns.map((turn) => turn.content).join(" ")
    : typeof body.data === "string"
    ? body.data
    : undefined;
  return text !== undefined && isLifecycleNote(text);
}

// Notes a shim writes on agent lifecycle hooks ("session started", "session ended (other)");
// bounded length so a real note is never dropped.
const LIFECYCLE_NOTE =
  /^(?:kiro-learn\s+)?(?:session|agent|conversation)\s+(?:started|start|spawned|resumed|ended|stopped|closed)(?:\s*\([^()\n]{0,100}\))?\.?$/i;

/** True for a lifecycle note such as "session started" or "session ended (other)": not memory. */
export function isLifecycleNote(text: string): boolean {
  return LIFECYCLE_NOTE.test(text.trim());
}

/** Options for {@link chunkEntries}. */
export interface ChunkOptions {
  /** Largest batch, in UTF-8 bytes of framed XML (raised to {@link MIN_CHUNK_CAP_BYTES}). */
  capBytes: number;
}

/** One prompt-sized batch: its entries and their framed XML joined by newlines. */
export interface Chunk {
  /** The entries in this batch, in queue order. */
  entries: QueueEntry[];
  /** The framed entries joined by "\n". */
  xml: string;
}

/**
 * Splits entries into batches whose framed XML is at most `capBytes` UTF-8 bytes, preserving
 * order. No entry is split across batches or dropped: an entry too large for the cap on its own
 * has its input and output shortened (marked with the truncation marker) and forms its own batch.
 * Callers filter trivial entries first; this function keeps whatever it is given.
 */
export function chunkEntries(entries: readonly QueueEntry[], options: ChunkOptions): Chunk[] {
  const cap = Math.max(MIN_CHUNK_CAP_BYTES, Math.floor(options.capBytes));
  const chunks: Chunk[] = [];
  let current: QueueEntry[] = [];
  let parts: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (current.length > 0) chunks.push({ entries: current, xml: parts.join("\n") });
    current = [];
    parts = [];
    bytes = 0;
  };
  for (const entry of entries) {
    const framed = frameEntry(entry);
    const size = utf8Length(framed);
    if (size > cap) {
      flush();
      chunks.push({ entries: [entry], xml: frameToFit(entry, cap) });
      continue;
    }
    const added = current.length === 0 ? size : size + 1;
    if (bytes + added > cap) flush();
    current.push(entry);
    parts.push(framed);
    bytes += current.length === 1 ? size : size + 1;
  }
  flush();
  return chunks;
}

/**
 * Frames an entry with its input and output shortened so the whole element fits `capBytes`.
 * The budget is shared fairly: a short field keeps all of its text and leaves the rest to the
 * other one.
 */
export function frameToFit(entry: QueueEntry, capBytes: number): string {
  const parts = frameParts(entry);
  const full = renderFrame(parts);
  if (utf8Length(full) <= capBytes) return full;
  const skeleton = utf8Length(renderFrame({ ...parts, input: "", output: parts.output && "" }));
  const markerBytes = utf8Length(escapeXml(TRUNCATION_MARKER));
  const fields = parts.output === undefined ? 1 : 2;
  const budget = Math.max(0, capBytes - skeleton - markerBytes * fields);
  const inputCost = escapedBytes(parts.input);
  const outputCost = parts.output === undefined ? 0 : escapedBytes(parts.output);
  let inputBudget = fields === 1 ? budget : Math.floor(budget / 2);
  let outputBudget = budget - inputBudget;
  if (fields === 2) {
    if (inputCost < inputBudget) {
      outputBudget += inputBudget - inputCost;
      inputBudget = inputCost;
    } else if (outputCost < outputBudget) {
      inputBudget += outputBudget - outputCost;
      outputBudget = outputCost;
    }
  }
  const input = inputCost <= inputBudget
    ? parts.input
    : cutToEscapedBytes(parts.input, inputBudget) + TRUNCATION_MARKER;
  const output = parts.output === undefined || outputCost <= outputBudget
    ? parts.output
    : cutToEscapedBytes(parts.output, outputBudget) + TRUNCATION_MARKER;
  return renderFrame({ ...parts, input, output });
}

function frameParts(entry: QueueEntry): FrameParts {
  const body = entry.body;
  const kindName = entry.compacted ? "compacted_summary" : KIND_TOOL_NAMES[entry.kind] ?? "unknown";
  let toolName = kindName;
  let input = "";
  let output: string | undefined;
  let failed = false;
  if (body.type === "text") {
    input = body.content;
  } else if (body.type === "message") {
    input = body.turns.map((turn) => `${turn.role}: ${turn.content}`).join("\n");
  } else {
    const data = body.data;
    if (isRecord(data)) {
      if (typeof data.tool_name === "string" && data.tool_name.trim() !== "") {
        toolName = data.tool_name;
      }
      if ("tool_input" in data) {
        input = stringify(data.tool_input);
      } else {
        const { tool_name: _name, tool_response: _response, ...rest } = data;
        input = Object.keys(rest).length > 0 ? stringify(rest) : "";
      }
      if ("tool_response" in data && data.tool_response !== undefined) {
        output = stringify(data.tool_response);
      }
      failed = looksFailed(data);
    } else {
      input = stringify(data);
    }
  }
  return {
    kind: entry.kind,
    toolName: truncateChars(toolName, MAX_TOOL_NAME_CHARS),
    timestamp: truncateChars(String(entry.timestamp), MAX_TIMESTAMP_CHARS),
    input,
    output,
    failed,
  };
}

function renderFrame(parts: FrameParts): string {
  const lines = [
    `<tool_observation kind="${escapeXml(parts.kind)}">`,
    `  <tool_name>${escapeXml(parts.toolName)}</tool_name>`,
    `  <timestamp>${escapeXml(parts.timestamp)}</timestamp>`,
    `  <input>${escapeXml(parts.input)}</input>`,
  ];
  if (parts.output !== undefined) lines.push(`  <output>${escapeXml(parts.output)}</output>`);
  if (parts.failed) lines.push("  <status>failed</status>");
  lines.push("</tool_observation>");
  return lines.join("\n");
}

/** A tool call failed when its response says so, it exited non-zero, or it carries an error. */
function looksFailed(data: Record<string, unknown>): boolean {
  const response = data.tool_response;
  for (const source of [data, isRecord(response) ? response : undefined]) {
    if (!source) continue;
    if (source.success === false || source.is_error === true) return true;
    for (const key of ["exit_status", "exit_code", "exitCode"]) {
      const value = source[key];
      if (typeof value === "number" && value !== 0) return true;
      if (typeof value === "string" && /^-?\d+$/.test(value.trim()) && Number(value) !== 0) {
        return true;
      }
    }
    const error = source.error;
    if (error !== undefined && error !== null && error !== false && error !== "") return true;
  }
  return false;
}

function isEmptyBody(body: QueueEntry["body"]): boolean {
  if (body.type === "text") return body.content.trim() === "";
  if (body.type === "message") return body.turns.every((turn) => turn.content.trim() === "");
  return isEmptyValue(body.data, 0);
}

function isEmptyValue(value: unknown, depth: number): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return value.trim() === "";
  if (depth > 8) return false;
  if (Array.isArray(value)) return value.every((item) => isEmptyValue(item, depth + 1));
  if (isRecord(value)) return Object.values(value).every((item) => isEmptyValue(item, depth + 1));
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // Event bodies come from JSON, but a cycle or a BigInt must not break a whole batch.
    return String(value);
  }
}

/** UTF-8 bytes of `text` once escaped. */
function escapedBytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) bytes += unitCost(text, i);
  return bytes;
}

/** The longest prefix of `text` whose escaped form fits in `budget` UTF-8 bytes. */
function cutToEscapedBytes(text: string, budget: number): string {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length &&
      text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff;
    const cost = pair ? 4 : unitCost(text, i);
    if (bytes + cost > budget) break;
    bytes += cost;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** Escaped UTF-8 cost of the unit at `i`; a surrogate pair costs 2 per unit (4 together). */
function unitCost(text: string, i: number): number {
  const code = text.charCodeAt(i);
  switch (code) {
    case 38: // &
      return 5;
    case 60: // <
    case 62: // >
      return 4;
    case 34: // "
    case 39: // '
      return 6;
  }
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 2 : 3;
  }
  if (code >= 0xdc00 && code <= 0xdfff) {
    const prev = text.charCodeAt(i - 1);
    return prev >= 0xd800 && prev <= 0xdbff ? 2 : 3;
  }
  return 3;
}
