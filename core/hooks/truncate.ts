/**
 * Cutting event bodies to the shim's size cap without breaking them: the longest strings are
 * shortened (keeping their beginnings) and marked, so a 30 MB `cat` output still arrives as a
 * valid event that says it was cut.
 *
 * @module
 */
import type { EventBody } from "@kiro-learn/core/schemas";
import { TRUNCATION_MARKER } from "@kiro-learn/core/schemas/limits";

/** Strings at most this long are never shortened (tool names, paths, error lines survive). */
export const MIN_KEPT_CHARS = 1024;

/** Result of {@linkcode truncateBody}. */
export interface TruncateResult {
  /** The body, at most `maxBytes` serialised (a copy when it had to be cut). */
  body: EventBody;
  /** True when anything was cut. */
  truncated: boolean;
}

const encoder = new TextEncoder();
const MARKER_CHARS = TRUNCATION_MARKER.length;

/** UTF-8 size of a body's JSON serialisation: what the cap is measured on. */
export function serializedBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? "").length;
}

/**
 * Fits `body` into `maxBytes` (UTF-8 of its JSON). The longest string leaves are cut to a
 * common length (their heads kept, {@linkcode TRUNCATION_MARKER} appended); if that cannot be
 * enough (a huge array of small values), the body's largest parts are replaced by a cut JSON
 * rendering of themselves. The result is always valid and never over the cap. `size` is the
 * body's {@linkcode serializedBytes}, when the caller has already measured it.
 */
export function truncateBody(
  body: EventBody,
  maxBytes: number,
  size: number = serializedBytes(body),
): TruncateResult {
  if (size <= maxBytes) return { body, truncated: false };
  const copy = structuredClone(body) as EventBody;
  let current = size;
  for (let pass = 0; pass < 4 && current > maxBytes; pass++) {
    shortenLongestStrings(copy, current - maxBytes);
    const next = serializedBytes(copy);
    if (next === current) break;
    current = next;
  }
  if (current <= maxBytes) return { body: copy, truncated: true };
  return { body: fallback(copy, maxBytes), truncated: true };
}

interface Leaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: string;
}

function collectLeaves(value: unknown, out: Leaf[], depth: number): void {
  if (depth > 64 || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item === "string") out.push({ holder: value, key: i, value: item });
      else collectLeaves(item, out, depth + 1);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (typeof item === "string") out.push({ holder: record, key, value: item });
    else collectLeaves(item, out, depth + 1);
  }
}

/**
 * Water-filling: find the largest length T such that cutting every longer string to T (plus
 * the marker) saves at least `excess` bytes. Each string's bytes per character (escapes and
 * multi-byte characters included) converts characters to bytes; the caller re-measures and
 * repeats, because a string's head may be denser than its average.
 */
function shortenLongestStrings(body: EventBody, excess: number): void {
  const leaves: Leaf[] = [];
  collectLeaves(body, leaves, 0);
  const candidates = leaves
    .filter((leaf) => leaf.value.length > MIN_KEPT_CHARS + MARKER_CHARS && leaf.key !== "type")
    .map((leaf) => ({
      leaf,
      ratio: Math.max(1, (serializedBytes(leaf.value) - 2) / leaf.value.length),
    }));
  if (candidates.length === 0) return;
  const saved = (t: number) => {
    let total = 0;
    for (const { leaf, ratio } of candidates) {
      if (leaf.value.length > t + MARKER_CHARS) {
        total += (leaf.value.length - t) * ratio - MARKER_CHARS;
      }
    }
    return total;
  };
  let lo = MIN_KEPT_CHARS;
  let hi = Math.max(...candidates.map(({ leaf }) => leaf.value.length));
  if (saved(lo) < excess) {
    hi = lo;
  } else {
    // Largest t with saved(t) >= excess (saved is non-increasing in t).
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (saved(mid) >= excess) lo = mid;
      else hi = mid - 1;
    }
  }
  for (const { leaf } of candidates) {
    if (leaf.value.length > lo + MARKER_CHARS) setLeaf(leaf, cutString(leaf.value, lo));
  }
}

function setLeaf(leaf: Leaf, value: string): void {
  (leaf.holder as Record<string | number, unknown>)[leaf.key] = value;
}

/** The first `chars` UTF-16 units of `text` (never splitting a surrogate pair) + the marker. */
export function cutString(text: string, chars: number): string {
  let end = Math.max(0, Math.min(chars, text.length));
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + TRUNCATION_MARKER;
}

/** Cuts `text` so that its JSON string literal takes at most `bytes` UTF-8 bytes. */
function cutToBytes(text: string, bytes: number): string {
  const budget = bytes - serializedBytes(TRUNCATION_MARKER);
  if (budget <= 2) return TRUNCATION_MARKER;
  let lo = 0;
  let hi = Math.min(text.length, budget);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (serializedBytes(text.slice(0, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return cutString(text, lo);
}

/**
 * The last resort: keep what is small (tool name, failure flag, error line) and replace the
 * rest by one cut JSON rendering, so even pathological shapes arrive, marked and valid.
 */
function fallback(body: EventBody, maxBytes: number): EventBody {
  const budget = Math.max(64, maxBytes - 256);
  switch (body.type) {
    case "text":
      return { type: "text", content: cutToBytes(body.content, budget) };
    case "message": {
      const joined = body.turns.map((t) => `${t.role}: ${t.content}`).join("\n\n");
      return {
        type: "message",
        turns: [{ role: "transcript", content: cutToBytes(joined, budget) }],
      };
    }
    case "json": {
      const data = body.data;
      const kept: Record<string, unknown> = {};
      let rest: unknown = data;
      if (data !== null && typeof data === "object" && !Array.isArray(data)) {
        const big: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(data)) {
          if (serializedBytes(value) <= 1024 && Object.keys(kept).length < 32) kept[key] = value;
          else big[key] = value;
        }
        rest = big;
      }
      const keptBytes = serializedBytes(kept);
      const text = JSON.stringify(rest) ?? "";
      const out: Record<string, unknown> = {
        ...(keptBytes <= budget / 2 ? kept : {}),
        _truncated: cutToBytes(text, budget - Math.min(keptBytes, budget / 2)),
      };
      return { type: "json", data: out };
    }
  }
}

/**
 * Most bytes of context a hook prints. Kiro cuts hook output at 10 KiB and Claude Code at 10,000
 * characters, mid-record either way; 10,000 UTF-8 bytes fits under both.
 */
export const MAX_HOOK_OUTPUT_BYTES = 10_000;

/** The marker that ends output cut by {@linkcode capHookOutput}. */
export const OUTPUT_CUT_MARKER =
  "[kiro-learn: more memory left out to fit the hook's output limit]";

/**
 * Caps what a hook prints at `maxBytes` UTF-8 bytes: cut at the last blank line (a record
 * boundary) or line that fits, then the marker, so an agent never sees half a record.
 */
export function capHookOutput(text: string, maxBytes: number = MAX_HOOK_OUTPUT_BYTES): string {
  if (encoder.encode(text).length <= maxBytes) return text;
  const room = maxBytes - encoder.encode(`\n${OUTPUT_CUT_MARKER}\n`).length;
  // The longest prefix that fits, in characters (never splitting a surrogate pair).
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (encoder.encode(text.slice(0, mid)).length <= room) lo = mid;
    else hi = mid - 1;
  }
  let cut = text.slice(0, lo);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const boundary = cut.lastIndexOf("\n\n");
  const line = cut.lastIndexOf("\n");
  const end = boundary > 0 ? boundary : line > 0 ? line : cut.length;
  return `${cut.slice(0, end).trimEnd()}\n${OUTPUT_CUT_MARKER}\n`;
}
