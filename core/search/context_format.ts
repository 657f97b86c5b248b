/**
 * The context block injected into the next prompt: seed 003's fixed format under a token budget.
 *
 * @module
 */
import type { MemoryRecord } from "../schemas/mod.ts";
import { isLifecycleNote } from "../xml/mod.ts";

/** First line of every context block. */
export const CONTEXT_HEADER = "## Prior observations from kiro-learn";

/** Default token budget of an injected block. */
export const DEFAULT_CONTEXT_TOKENS = 2000;

/**
 * Characters per token for English and code, the usual rule of thumb: budgets only need to be
 * right to within a few percent.
 */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text (see {@linkcode CHARS_PER_TOKEN}). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
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
 * True for a record that only says a session started or ended ("session ended (other)", once
 * made from a lifecycle note): noise, never injected.
 */
export function isLifecycleRecord(record: Pick<MemoryRecord, "title" | "summary">): boolean {
  if (isLifecycleNote(record.title)) return true;
  const paragraphs = record.summary.split(/\n\s*\n/).map((p) => p.trim())
    .filter((p) => p !== "" && !/^Request:/.test(p));
  return paragraphs.length > 0 && paragraphs.every(isLifecycleNote);
}

/**
 * `text` with absolute paths under `root` written relative to it (`/srv/app/src/a.ts` →
 * `src/a.ts`, the root itself → `.`). Paths elsewhere are left as they are.
 */
export function relativeToRoot(text: string, root: string | undefined): string {
  if (root === undefined) return text;
  const base = root.replace(/[\\/]+$/, "");
  if (base === "" || !/^(?:\/|[A-Za-z]:[\\/])/.test(base)) return text;
  let out = "";
  let from = 0;
  for (let at = text.indexOf(base); at >= 0; at = text.indexOf(base, at + base.length)) {
    const before = at === 0 ? "" : text[at - 1];
    const after = text[at + base.length] ?? "";
    // Only a whole path: not the tail of a longer one, not a sibling such as /srv/app2.
    if (/[\w.\/\\-]/.test(before) || /[\w.-]/.test(after)) continue;
    out += text.slice(from, at);
    if (after === "/" || after === "\\") {
      from = at + base.length + 1;
    } else {
      out += ".";
      from = at + base.length;
    }
  }
  return out + text.slice(from);
}

/** Options of {@linkcode formatContext}. */
export interface FormatContextOptions {
  /** Token budget of the block (default {@linkcode DEFAULT_CONTEXT_TOKENS}). */
  tokenBudget?: number;
  /** First line (default {@linkcode CONTEXT_HEADER}). */
  header?: string;
  /** The project's root: paths under it are shown relative to it. */
  projectRoot?: string;
}

/**
 * Formats records, best first, into the fixed block, keeping within `tokenBudget`. A record that
 * does not fit is skipped (a shorter one after it may still fit); when not even the first fits,
 * its summary is cut so the best match is never lost entirely. Lifecycle noise
 * ({@linkcode isLifecycleRecord}) is left out; paths under `projectRoot` are made relative.
 */
export function formatContext(
  all: readonly MemoryRecord[],
  options: FormatContextOptions = {},
): FormattedContext {
  const budget = options.tokenBudget ?? DEFAULT_CONTEXT_TOKENS;
  const header = options.header ?? CONTEXT_HEADER;
  const rel = (text: string) => relativeToRoot(text, options.projectRoot);
  const records = all.filter((r) => !isLifecycleRecord(r)).map((r) => ({
    ...r,
    title: rel(r.title),
    summary: rel(r.summary),
    facts: r.facts.map(rel),
  }));
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
