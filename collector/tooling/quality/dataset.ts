/**
 * The retrieval-quality set: memory records of a fictional project (`tideline`: a web app, its
 * API, jobs and CLI) written the way extraction writes them, and labelled queries phrased the
 * way a developer asks — many of them sharing almost no words with the record that answers them.
 *
 * - `data/targets.json`: hand-written records that answer the queries;
 * - `data/near_misses.json`: hand-written distractors — superseded older decisions on the same
 *   topics, and records that share the queries' surface words without answering them;
 * - `data/distractors.ndjson`: template distractors (see `generate.ts`);
 * - `data/queries.json`: queries with the keys of their relevant records; queries whose
 *   `relevant` is empty have no answer in the set (they measure what retrieval injects anyway).
 *
 * @module
 */
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { isStopWord } from "@kiro-learn/core/search";
import { createRng, hashString, seededUlid } from "@kiro-learn/core/testing";

/** A record of the set, before it becomes a `MemoryRecord`. */
export interface SetRecord {
  /** Stable key the queries refer to. */
  key: string;
  /** Observation type. */
  type: MemoryRecord["observation_type"];
  /** Age relative to the set's reference time, in days. */
  days_ago: number;
  /** Title. */
  title: string;
  /** Summary. */
  summary: string;
  /** Facts. */
  facts: string[];
  /** Concepts. */
  concepts: string[];
  /** Files touched. */
  files: string[];
}

/** A labelled query. */
export interface SetQuery {
  /** Stable id. */
  id: string;
  /** The prompt text. */
  query: string;
  /** Keys of the records that answer it (empty: nothing in the set does). */
  relevant: string[];
}

/** The whole set. */
export interface QualitySet {
  /** Every record: targets, near misses, template distractors. */
  records: SetRecord[];
  /** Every query. */
  queries: SetQuery[];
  /** Keys of the hand-written targets. */
  targets: Set<string>;
}

/** The namespace the set is stored in (one project, like a real memory). */
export const QUALITY_NAMESPACE = `/actor/quality/project/${"7".repeat(64)}/`;

/** The set's "now": records are dated `days_ago` before it. */
export const REFERENCE_TIME_MS = Date.UTC(2025, 5, 2, 12, 0, 0);

const DATA = new URL("./data/", import.meta.url);

async function readJson<T>(name: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(new URL(name, DATA))) as T;
}

/** Reads the set from `data/`. */
export async function loadQualitySet(): Promise<QualitySet> {
  const targets = await readJson<SetRecord[]>("targets.json");
  const nearMisses = await readJson<SetRecord[]>("near_misses.json");
  const generated = (await Deno.readTextFile(new URL("distractors.ndjson", DATA)))
    .split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as SetRecord);
  const queries = await readJson<SetQuery[]>("queries.json");
  return {
    records: [...targets, ...nearMisses, ...generated],
    queries,
    targets: new Set(targets.map((t) => t.key)),
  };
}

/**
 * The set's records as memory records, keyed by set key. Ids and timestamps are derived from
 * the key, so every run stores the same records.
 */
export function toMemoryRecords(records: readonly SetRecord[]): Map<string, MemoryRecord> {
  const out = new Map<string, MemoryRecord>();
  for (const r of records) {
    const rng = createRng(hashString(r.key));
    // Minutes within the day spread records of the same day apart.
    const at = REFERENCE_TIME_MS - r.days_ago * 86_400_000 - rng.int(0, 600) * 60_000;
    out.set(r.key, {
      record_id: `mr_${seededUlid(rng, at)}`,
      namespace: QUALITY_NAMESPACE,
      strategy: "llm-summary",
      title: r.title,
      summary: r.summary,
      facts: r.facts,
      concepts: r.concepts,
      files_touched: r.files,
      observation_type: r.type,
      source_event_ids: [seededUlid(rng, at - 60_000)],
      created_at: new Date(at).toISOString(),
    });
  }
  return out;
}

/**
 * Content terms of a text, roughly as an index sees them: lower case, split on anything that
 * is not a letter or digit, stop words and one-letter tokens dropped, and a crude suffix strip
 * (`logins` → `login`, `expired` → `expir`) standing in for a stemmer.
 */
export function contentTerms(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || isStopWord(raw)) continue;
    out.add(stem(raw));
  }
  return out;
}

function stem(word: string): string {
  for (const suffix of ["ing", "ed", "es", "s", "e"]) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) {
      return word.slice(0, -suffix.length);
    }
  }
  return word;
}

/** Share of the query's content terms that occur in the record's title, summary or facts. */
export function wordOverlap(
  query: string,
  record: Pick<SetRecord, "title" | "summary" | "facts">,
): number {
  const q = contentTerms(query);
  if (q.size === 0) return 0;
  const doc = contentTerms([record.title, record.summary, ...record.facts].join(" "));
  let shared = 0;
  for (const term of q) if (doc.has(term)) shared++;
  return shared / q.size;
}

/** A query counts as low-overlap when at most this share of its terms occur in its target. */
export const LOW_OVERLAP = 0.25;
