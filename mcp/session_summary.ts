/**
 * The `save_session_summary` record builder (seed 000, "The MCP path"): pure, so its
 * formatting and truncation rules can be tested without a server or a collector.
 *
 * - title: `request`, whitespace collapsed, cut to the record's 200-character limit;
 * - summary: four markdown sections ("## What was investigated", "## What was learned",
 *   "## What was completed", "## Next steps"). When they exceed 4,000 characters, sections are
 *   dropped from the bottom until the rest plus a final `[truncated]` line fits; if even the
 *   first section alone is too long, it is cut to fit instead (dropping it too would store
 *   nothing but the marker);
 * - files_touched: the union of `files_read` then `files_modified`, first occurrence kept,
 *   capped to the record limit;
 * - concepts and facts empty, `observation_type: session_summary`,
 *   `strategy: mcp_session_summary`, one synthetic source event id.
 *
 * @module
 */
import { newEventId, newRecordId } from "@kiro-learn/core/ids";
import { type MemoryRecord, RECORD_LIMITS } from "@kiro-learn/core/schemas";

/** The seven fields the agent passes to `save_session_summary`. */
export interface SessionSummaryInput {
  /** What the user asked for. */
  request: string;
  /** What the agent explored. */
  investigated: string;
  /** Key findings or discoveries. */
  learned: string;
  /** What was delivered. */
  completed: string;
  /** Suggested follow-ups. */
  next_steps: string;
  /** Files read during the turn. */
  files_read: readonly string[];
  /** Files modified during the turn. */
  files_modified: readonly string[];
}

/** The section headings, in the order they are written (and kept when truncating). */
export const SESSION_SUMMARY_HEADINGS: readonly string[] = Object.freeze([
  "## What was investigated",
  "## What was learned",
  "## What was completed",
  "## Next steps",
]);

/** Appended (on its own line) when sections had to be dropped or cut. */
export const SUMMARY_TRUNCATED_MARKER = "[truncated]";

const SECTION_SEPARATOR = "\n\n";

/** The derived text fields of a session summary record. */
export interface SessionSummaryText {
  /** `request`, single-line, ≤ 200 characters. */
  title: string;
  /** The markdown sections, ≤ 4,000 characters. */
  summary: string;
  /** Deduplicated union of the files read and modified, ≤ the record's file limit. */
  files_touched: string[];
}

/** Options for {@linkcode buildSessionSummaryRecord}. */
export interface BuildSessionSummaryOptions {
  /** The project namespace the record belongs to. */
  namespace: string;
  /** Creation time; defaults to now. */
  now?: Date;
  /** Record id; defaults to a new `mr_` id. */
  recordId?: string;
  /**
   * The record's single source event id; defaults to a fresh ULID. It is synthetic: the MCP
   * path creates no event, but the schema requires at least one source id.
   */
  sourceEventId?: string;
}

/** Derive the title, summary and files of a session summary (see the module doc for rules). */
export function formatSessionSummary(input: SessionSummaryInput): SessionSummaryText {
  return {
    title: sessionTitle(input.request),
    summary: sessionSummaryMarkdown(input),
    files_touched: unionFiles(input.files_read, input.files_modified),
  };
}

/** Build the complete memory record `save_session_summary` posts to the collector. */
export function buildSessionSummaryRecord(
  input: SessionSummaryInput,
  options: BuildSessionSummaryOptions,
): MemoryRecord {
  const text = formatSessionSummary(input);
  return {
    record_id: options.recordId ?? newRecordId(),
    namespace: options.namespace,
    strategy: "mcp_session_summary",
    title: text.title,
    summary: text.summary,
    facts: [],
    concepts: [],
    files_touched: text.files_touched,
    observation_type: "session_summary",
    source_event_ids: [options.sourceEventId ?? newEventId()],
    created_at: (options.now ?? new Date()).toISOString(),
  };
}

/** `request` on one line, cut to the title limit; never empty (the schema needs ≥ 1 char). */
export function sessionTitle(request: string): string {
  const line = request.replace(/\s+/g, " ").trim();
  const title = cutToLength(line, RECORD_LIMITS.title).trimEnd();
  return title === "" ? "Session summary" : title;
}

/** The four-section markdown summary, truncated from the bottom to the summary limit. */
export function sessionSummaryMarkdown(input: SessionSummaryInput): string {
  const bodies = [input.investigated, input.learned, input.completed, input.next_steps];
  const sections = SESSION_SUMMARY_HEADINGS.map((heading, i) => {
    const body = bodies[i].trim();
    return body === "" ? heading : `${heading}${SECTION_SEPARATOR}${body}`;
  });
  const full = sections.join(SECTION_SEPARATOR);
  const max = RECORD_LIMITS.summary;
  if (full.length <= max) return full;

  const tail = SECTION_SEPARATOR + SUMMARY_TRUNCATED_MARKER;
  const kept = [...sections];
  while (kept.length > 1 && kept.join(SECTION_SEPARATOR).length + tail.length > max) kept.pop();
  const head = cutToLength(kept.join(SECTION_SEPARATOR), max - tail.length).trimEnd();
  return head + tail;
}

/** Union of the two lists, trimmed, empties dropped, first occurrence kept, capped. */
export function unionFiles(
  filesRead: readonly string[],
  filesModified: readonly string[],
): string[] {
  const seen = new Set<string>();
  for (const raw of [...filesRead, ...filesModified]) {
    const file = cutToLength(raw.trim(), RECORD_LIMITS.file);
    if (file === "" || seen.has(file)) continue;
    seen.add(file);
    if (seen.size === RECORD_LIMITS.files) break;
  }
  return [...seen];
}

/**
 * Cut to at most `max` UTF-16 units (what the schema's length limits count) without splitting
 * a surrogate pair, which would leave an unpaired half in storage.
 */
export function cutToLength(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
