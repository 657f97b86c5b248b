/**
 * Parsing the compressor's reply: `<memory_record>` blocks, a skip signal, or garbage.
 *
 * Follows kiro-learn's response handling (blank or `<skip/>` → skip; text with neither marker →
 * garbage, which the worker retries in a fresh session) and, unlike it, bounds every field to the
 * record limits so nothing oversized reaches storage.
 *
 * @module
 */
import { OBSERVATION_TYPES, type ObservationType, RECORD_LIMITS } from "../schemas/mod.ts";
import { elementText, hasOpenTag, parseAttributes, scanElements } from "./_scan.ts";
import { truncateChars } from "./text.ts";

/** One memory record as the model described it, before pipeline fields are added. */
export interface ParsedRecord {
  /** One of the six observation types. */
  observation_type: ObservationType;
  /** Short title, at most {@link RECORD_LIMITS}.title characters. */
  title: string;
  /** Summary, at most {@link RECORD_LIMITS}.summary characters. */
  summary: string;
  /** Distinct facts, each bounded, at most {@link RECORD_LIMITS}.facts of them. */
  facts: string[];
  /** Distinct concepts, each bounded, at most {@link RECORD_LIMITS}.concepts of them. */
  concepts: string[];
  /** Distinct file paths, each bounded, at most {@link RECORD_LIMITS}.files of them. */
  files_touched: string[];
}

/** What one compressor reply amounts to. */
export type ParseResult =
  | { kind: "skip" }
  | { kind: "garbage" }
  | { kind: "records"; records: ParsedRecord[] };

/** The text fields shared by extraction records and judge merges. */
export interface RecordFields {
  /** Title, bounded. */
  title: string;
  /** Summary, bounded. */
  summary: string;
  /** Facts, deduplicated and bounded. */
  facts: string[];
  /** Concepts, deduplicated and bounded. */
  concepts: string[];
  /** Files, deduplicated and bounded. */
  files_touched: string[];
}

/**
 * Classifies and parses a compressor reply. Never throws; linear in the length of `text`.
 *
 * - blank → garbage: an agent that said nothing did not say "skip" (a real agent that tried a
 *   tool, was refused and stopped replies with nothing), so the batch must not be consumed;
 * - at least one valid `<memory_record>` → records;
 * - otherwise a `<skip` tag anywhere → skip (the model said so explicitly);
 * - otherwise (prose, or markers with no valid block) → garbage.
 */
export function parseMemoryRecords(text: string): ParseResult {
  try {
    if (text.trim() === "") return { kind: "garbage" };
    const hasRecordMarker = hasOpenTag(text, "memory_record");
    const records: ParsedRecord[] = [];
    if (hasRecordMarker) {
      for (const block of scanElements(text, "memory_record")) {
        const record = parseRecordBlock(block.attrs, block.inner);
        if (record) records.push(record);
      }
    }
    if (records.length > 0) return { kind: "records", records };
    if (hasOpenTag(text, "skip")) return { kind: "skip" };
    return { kind: "garbage" };
  } catch {
    // Defence in depth: a parser bug must cost one retry, not crash the worker.
    return { kind: "garbage" };
  }
}

/**
 * Normalises a model-written observation type ("Discovery", "tool-use") to one of the six, or
 * returns undefined when it is none of them.
 */
export function normalizeObservationType(value: string | undefined): ObservationType | undefined {
  if (value === undefined) return undefined;
  const normalized = value.trim().toLowerCase().replace(/[\s-]+/g, "_");
  return (OBSERVATION_TYPES as readonly string[]).includes(normalized)
    ? normalized as ObservationType
    : undefined;
}

/**
 * Reads title, summary, facts, concepts and files from the inner text of a record-like element.
 * Returns undefined when the title or the summary is missing or empty.
 */
export function parseRecordFields(inner: string): RecordFields | undefined {
  const title = firstText(inner, "title");
  const summary = firstText(inner, "summary");
  if (!title || !summary) return undefined;
  return {
    title: truncateChars(title, RECORD_LIMITS.title),
    summary: truncateChars(summary, RECORD_LIMITS.summary),
    facts: collectList(inner, "fact", RECORD_LIMITS.fact, RECORD_LIMITS.facts),
    concepts: collectList(inner, "concept", RECORD_LIMITS.concept, RECORD_LIMITS.concepts),
    files_touched: collectList(inner, "file", RECORD_LIMITS.file, RECORD_LIMITS.files),
  };
}

function parseRecordBlock(attrs: string, inner: string): ParsedRecord | undefined {
  const observationType = normalizeObservationType(parseAttributes(attrs).get("type")) ??
    normalizeObservationType(firstText(inner, "observation_type"));
  if (!observationType) return undefined;
  const fields = parseRecordFields(inner);
  if (!fields) return undefined;
  return { observation_type: observationType, ...fields };
}

/** The text of the first `<name>` element, or undefined. */
export function firstText(inner: string, name: string): string | undefined {
  const found = scanElements(inner, name, { limit: 1 })[0];
  return found ? elementText(found.inner) : undefined;
}

// Every non-empty, distinct `<name>` text (bare or inside a wrapper such as `<facts>`), each cut
// to `maxChars`, at most `maxCount` of them, in order of appearance.
function collectList(
  inner: string,
  name: string,
  maxChars: number,
  maxCount: number,
): string[] {
  const seen = new Set<string>();
  for (const element of scanElements(inner, name)) {
    const value = truncateChars(elementText(element.inner), maxChars);
    if (value !== "") seen.add(value);
    if (seen.size >= maxCount) break;
  }
  return [...seen];
}
