/**
 * The context block injected into the next prompt: seed 003's fixed format under a token budget.
 *
 * @module
 */
import type { MemoryRecord } from "../schemas/mod.ts";

/** First line of every context block. */
export const CONTEXT_HEADER = "## Prior observations from kiro-learn";

/** Default token budget of an injected block. */
export const DEFAULT_CONTEXT_TOKENS = 2000;

/**
 * Estimated tokens of a text: about four characters a token for English and code, the usual
 * rule of thumb; the budget only needs to be right to within a few percent.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One record as a `### title`, summary, `- fact` block. */
export function formatRecordBlock(
  record: Pick<MemoryRecord, "title" | "summary" | "facts">,
): string {
  const lines = [`### ${record.title}`, "", record.summary];
  if (record.facts.length > 0) lines.push("", ...record.facts.map((f) => `- ${f}`));
  return lines.join("\n");
}

/** A formatted context block. */
export interface FormattedContext {
  /** The block ('' when nothing fits or nothing was found). */
  context: string;
  /** Ids of the records it holds, in order. */
  record_ids: string[];
  /** Its estimated tokens. */
  tokens: number;
}

/**
 * Formats records, best first, into the fixed block, keeping within `tokenBudget`. A record that
 * does not fit is skipped (a shorter one after it may still fit); when not even the first fits,
 * its summary is cut so the best match is never lost entirely.
 */
export function formatContext(
  records: readonly MemoryRecord[],
  options: { tokenBudget?: number; header?: string } = {},
): FormattedContext {
  const budget = options.tokenBudget ?? DEFAULT_CONTEXT_TOKENS;
  const header = options.header ?? CONTEXT_HEADER;
  if (records.length === 0) return { context: "", record_ids: [], tokens: 0 };
  const parts = [header];
  const ids: string[] = [];
  let used = estimateTokens(header);
  for (const record of records) {
    const block = formatRecordBlock(record);
    const cost = estimateTokens("\n\n" + block);
    if (used + cost <= budget) {
      parts.push(block);
      ids.push(record.record_id);
      used += cost;
    }
  }
  if (ids.length === 0) {
    const first = records[0];
    const room = Math.max(0, (budget - used) * 4 - first.title.length - 16);
    if (room < 40) return { context: "", record_ids: [], tokens: 0 };
    const block = formatRecordBlock({
      title: first.title,
      summary: first.summary.slice(0, room - 1) + "…",
      facts: [],
    });
    parts.push(block);
    ids.push(first.record_id);
  }
  const context = parts.join("\n\n");
  return { context, record_ids: ids, tokens: estimateTokens(context) };
}
