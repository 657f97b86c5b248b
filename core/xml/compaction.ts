/**
 * The compactor's wire format: a request that asks for fewer, denser entries, and the parser for
 * its `<compacted_entry>` blocks.
 *
 * @module
 */
import type { QueueEntry } from "../schemas/mod.ts";
import { frameEntry } from "./framing.ts";
import { elementText, scanElements } from "./_scan.ts";

/** The instructions sent with every compaction request. */
export const COMPACTION_INSTRUCTIONS =
  "Summarise the observations below into fewer, denser entries. Keep decisions, errors, " +
  "patterns and discoveries, with the file paths, commands and names they involve. Merge " +
  "related items; drop redundant or low-value ones. Reply with XML only: one or more " +
  "<compacted_entry>...</compacted_entry> blocks of plain text, XML-escaped.";

/**
 * Frames a compaction request: `<compaction_request>` with the instructions and the framed
 * entries inside `<observations>`.
 */
export function frameCompactionRequest(entries: readonly QueueEntry[]): string {
  return [
    "<compaction_request>",
    // Our own trusted text: the tag name stays literal so the model copies it exactly.
    `<instructions>${COMPACTION_INSTRUCTIONS}</instructions>`,
    "<observations>",
    ...entries.map(frameEntry),
    "</observations>",
    "</compaction_request>",
  ].join("\n");
}

/**
 * The non-empty, unescaped `<compacted_entry>` texts of a compactor reply, in order, or null when
 * there is none (the caller then retries or falls back to eviction). Never throws.
 */
export function parseCompactedEntries(text: string): string[] | null {
  try {
    const out: string[] = [];
    for (const found of scanElements(text, "compacted_entry")) {
      const value = elementText(found.inner);
      if (value !== "") out.push(value);
    }
    return out.length > 0 ? out : null;
  } catch {
    return null;
  }
}
