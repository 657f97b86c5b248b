/**
 * Text the MCP tools return to the agent. Compact on purpose: every character lands in the
 * agent's context window, so lists show one title line and a short summary per record, and the
 * full text is one `get_memories` call away (which is why every line carries the record id).
 *
 * @module
 */
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import type { MemoryWithSources } from "@kiro-learn/core/api";

/** What `search_memory` says when nothing matched. */
export const NO_MATCHES_TEXT = "No matching memories found for this project.";

/** What `recent_activity` says when the project has no records. */
export const NO_ACTIVITY_TEXT = "No memories recorded for this project yet.";

/** Longest summary excerpt shown in a list, in characters. */
export const EXCERPT_CHARS = 280;

/** Options for {@linkcode formatRecordList}. */
export interface FormatListOptions {
  /** Put the creation time on each title line (timelines). */
  showDate?: boolean;
}

/** Numbered list: `1. [type] Title (mr_…)` then an indented excerpt of the summary. */
export function formatRecordList(
  records: readonly MemoryRecord[],
  options: FormatListOptions = {},
): string {
  return records.map((record, i) => {
    const date = options.showDate ? `${record.created_at} ` : "";
    const lines = [
      `${i + 1}. ${date}[${record.observation_type}] ${record.title} (${record.record_id})`,
      `   ${excerpt(record.summary, EXCERPT_CHARS)}`,
    ];
    if (record.concepts.length > 0) lines.push(`   concepts: ${record.concepts.join(", ")}`);
    if (record.files_touched.length > 0) {
      lines.push(`   files: ${record.files_touched.slice(0, 5).join(", ")}${more(record, 5)}`);
    }
    return lines.join("\n");
  }).join("\n\n");
}

/** One record in full: every field an agent may need, summary verbatim. */
export function formatFullRecord(entry: MemoryWithSources): string {
  const r = entry.record;
  const lines = [
    `# ${r.title}`,
    `id: ${r.record_id}`,
    `type: ${r.observation_type}`,
    `strategy: ${r.strategy}`,
    `created_at: ${r.created_at}`,
    "",
    r.summary,
  ];
  if (r.facts.length > 0) lines.push("", "Facts:", ...r.facts.map((f) => `- ${f}`));
  if (r.concepts.length > 0) lines.push("", `Concepts: ${r.concepts.join(", ")}`);
  if (r.files_touched.length > 0) {
    lines.push("", "Files:", ...r.files_touched.map((f) => `- ${f}`));
  }
  lines.push(
    "",
    `Source events (${r.source_event_ids.length}, ${entry.source_events.length} stored): ${
      r.source_event_ids.slice(0, 20).join(", ")
    }${r.source_event_ids.length > 20 ? ", …" : ""}`,
  );
  return lines.join("\n");
}

/** Full records separated by rules, then the ids that were not found. */
export function formatFullRecords(
  found: readonly MemoryWithSources[],
  missing: readonly string[],
): string {
  const parts = found.map(formatFullRecord);
  if (missing.length > 0) parts.push(`Not found in this project: ${missing.join(", ")}`);
  return parts.join("\n\n---\n\n");
}

/** `recent_activity`: a heading with the counts, then the timeline. */
export function formatActivity(records: readonly MemoryRecord[], total: number): string {
  if (records.length === 0) return NO_ACTIVITY_TEXT;
  const summaries = records.filter((r) => r.observation_type === "session_summary").length;
  const heading = `Latest ${records.length} of ${total} memories, newest first ` +
    `(${summaries} session ${summaries === 1 ? "summary" : "summaries"}):`;
  return `${heading}\n\n${formatRecordList(records, { showDate: true })}`;
}

/** Whitespace collapsed to single spaces and cut to `max` characters with an ellipsis. */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  // Never leave half a surrogate pair before the ellipsis.
  return flat.slice(0, max - 1).replace(/[\ud800-\udbff]$/, "") + "…";
}

function more(record: MemoryRecord, shown: number): string {
  const rest = record.files_touched.length - shown;
  return rest > 0 ? ` (+${rest} more)` : "";
}
