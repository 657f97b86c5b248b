/**
 * Retrieval-quality check: recall@5 and MRR of lexical-only and hybrid retrieval over the
 * labelled set in `data/` (see `dataset.ts`).
 *
 * ```sh
 * deno run -A collector/tooling/quality/eval.ts             # full set, plus a settings sweep
 * deno run -A collector/tooling/quality/eval.ts --no-sweep  # full set only
 * deno run -A collector/tooling/quality/eval.ts --quick     # every query over a smaller record set
 * deno run -A collector/tooling/quality/eval.ts --floor=0.4 --recency=0.25 --cut=0.7 --collapse=0.9
 * ```
 *
 * The records go into a real SQLite database (the FTS5 path with its query rewrite), their
 * embeddings come from the `use-lite` embedder (the collector's default backend) with the
 * collector's own input (`composeEmbeddingInput`, model id with the input version), are searched
 * through the collector's own vector index, and the hybrid searcher is the one the collector
 * serves. Record embeddings are cached in `.bench/quality-embeddings.json` (keyed by model and
 * text hash), so only the first run pays for embedding the set.
 *
 * Metrics, at the retrieval default of 10 results: recall@5 = share of a query's relevant
 * records in its top 5 (out of at most 5); MRR = mean of 1/rank of the first relevant record
 * (0 when none is in the top 10). Queries without an answer in the set report how many records
 * each mode injects anyway. Scores are also given for the vector index alone, and for the even-
 * and odd-numbered queries separately: settings are chosen on the even ones (the sweep reports
 * its best row there), so the odd ones show whether a choice generalises.
 *
 * Prints `quality: lexical recall@5 … MRR … | hybrid recall@5 … MRR … (N queries, M records)`
 * and writes `.bench/quality.json` (`.bench/quality-quick.json` with `--quick`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import {
  composeEmbeddingInput,
  type Embedder,
  queryEmbeddingInput,
  withInputVersion,
} from "../../daemon/embedding/mod.ts";
import { createUseLiteEmbedder } from "../../daemon/embedding/mod.ts";
import { VectorIndex } from "../../daemon/embedding/mod.ts";
import { embedInBatches } from "./_embed_batches.ts";
import {
  createHybridSearcher,
  DEFAULT_COLLAPSE_ABOVE,
  DEFAULT_LEXICAL_CUT,
  DEFAULT_RECENCY_WEIGHT,
  minSimilarityFor,
} from "../../daemon/retrieval/mod.ts";
import {
  loadQualitySet,
  LOW_OVERLAP,
  QUALITY_NAMESPACE,
  type QualitySet,
  type SetQuery,
  toMemoryRecords,
  wordOverlap,
} from "./dataset.ts";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** One evaluation's settings. */
export interface EvalConfig {
  /** `quick` (every query, fewer distractors, no sweeps) or `full`. */
  mode: "quick" | "full";
  /** Template distractors kept in quick mode. */
  quickDistractors: number;
  /** Vector similarity floor of the hybrid searcher (NaN: the model's default). */
  floor: number;
  /** Recency weight of the hybrid searcher. */
  recency: number;
  /** Lexical cut of the hybrid searcher. */
  lexicalCut: number;
  /** Near-duplicate collapsing of the hybrid searcher's vector list (above 1: off). */
  collapse: number;
  /** Run the settings sweep (full mode only; `--no-sweep` skips it). */
  sweep: boolean;
  /** Results per search (the retrieval default). */
  limit: number;
  /** JSON report path. */
  out: string;
  /** Embedding cache path (empty: no cache). */
  cache: string;
}

/** Parses the command line. */
export function parseEvalArgs(args: string[]): EvalConfig {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: "boolean", default: false },
      floor: { type: "string" },
      recency: { type: "string" },
      cut: { type: "string" },
      collapse: { type: "string" },
      "no-sweep": { type: "boolean", default: false },
      out: { type: "string" },
      cache: { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  });
  const quick = values.quick ?? false;
  const number = (text: string | undefined, fallback: number, name: string) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${text}`);
    return n;
  };
  return {
    mode: quick ? "quick" : "full",
    quickDistractors: 120,
    floor: number(values.floor, Number.NaN, "floor"),
    recency: number(values.recency, DEFAULT_RECENCY_WEIGHT, "recency"),
    lexicalCut: number(values.cut, DEFAULT_LEXICAL_CUT, "cut"),
    collapse: number(values.collapse, DEFAULT_COLLAPSE_ABOVE, "collapse"),
    sweep: !quick && !values["no-sweep"],
    limit: 10,
    out: values.out ?? join(REPO_ROOT, ".bench", quick ? "quality-quick.json" : "quality.json"),
    cache: values.cache ?? join(REPO_ROOT, ".bench", "quality-embeddings.json"),
  };
}

/** Recall@5 and MRR over some queries. */
export interface Scores {
  /** Mean recall@5. */
  recall_at_5: number;
  /** Mean reciprocal rank (top 10). */
  mrr: number;
  /** Queries scored. */
  queries: number;
}

/** Ranked record keys per query id. */
export type Rankings = Map<string, string[]>;

/** Scores rankings against the labels of the answerable queries in `queries`. */
export function score(queries: readonly SetQuery[], rankings: Rankings): Scores {
  const answerable = queries.filter((q) => q.relevant.length > 0);
  let recall = 0;
  let rr = 0;
  for (const q of answerable) {
    const ranked = rankings.get(q.id) ?? [];
    const relevant = new Set(q.relevant);
    const top5 = ranked.slice(0, 5).filter((k) => relevant.has(k)).length;
    recall += top5 / Math.min(relevant.size, 5);
    const first = ranked.slice(0, 10).findIndex((k) => relevant.has(k));
    rr += first < 0 ? 0 : 1 / (first + 1);
  }
  const n = Math.max(answerable.length, 1);
  return { recall_at_5: recall / n, mrr: rr / n, queries: answerable.length };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64(v: Float32Array): string {
  const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Float32Array {
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

/** Embeds texts through a `{model, sha256 → base64}` cache file. */
async function embedCached(
  embedder: Embedder,
  texts: string[],
  cachePath: string,
): Promise<Float32Array[]> {
  let cache: { model: string; vectors: Record<string, string> } = {
    model: embedder.model_id,
    vectors: {},
  };
  if (cachePath !== "") {
    try {
      const read = JSON.parse(await Deno.readTextFile(cachePath));
      if (read.model === embedder.model_id) cache = read;
    } catch {
      // No cache yet.
    }
  }
  const keys = await Promise.all(texts.map(sha256));
  const missing = [...new Set(keys.filter((k) => !(k in cache.vectors)))];
  const byKey = new Map(texts.map((t, i) => [keys[i], t]));
  const vectors = await embedInBatches(embedder, missing.map((k) => byKey.get(k)!));
  missing.forEach((k, j) => (cache.vectors[k] = toBase64(vectors[j])));
  if (cachePath !== "" && missing.length > 0) {
    await Deno.mkdir(dirname(cachePath), { recursive: true });
    await Deno.writeTextFile(cachePath, JSON.stringify(cache));
  }
  return keys.map((k) => fromBase64(cache.vectors[k]));
}

/** What a mode injects for queries that have no answer in the set. */
export interface NoAnswerReport {
  /** Such queries. */
  queries: number;
  /** Mean records injected by lexical retrieval. */
  lexical_injected: number;
  /** Mean records injected by hybrid retrieval. */
  hybrid_injected: number;
  /** Mean hybrid records that came only from the vector side. */
  hybrid_vector_only: number;
}

/** One row of a sweep. */
export interface SweepRow {
  /** Similarity floor. */
  floor: number;
  /** Lexical cut. */
  cut: number;
  /** Recency weight. */
  recency: number;
  /** Near-duplicate collapsing (above 1: off). */
  collapse: number;
  /** Scores of the answerable queries. */
  scores: Scores;
  /** Scores on the even-numbered queries (where settings are tuned) and the odd (held out). */
  split: Split;
  /** Mean vector-only records injected for no-answer queries. */
  no_answer_vector_only: number;
}

/** Scores on the two halves of the answerable queries, by the parity of their number. */
export interface Split {
  /** Even-numbered queries (q02, q04, …): the tuning half. */
  tune: Scores;
  /** Odd-numbered queries (q01, q03, …): the held-out half. */
  held_out: Scores;
}

/** The report written to JSON. */
export interface QualityReport {
  /** Mode. */
  mode: "quick" | "full";
  /** Records stored. */
  records: number;
  /** Queries asked (answerable + no-answer). */
  queries: number;
  /** Answerable queries. */
  answerable: number;
  /** Share of answerable queries whose words mostly do not occur in their target. */
  low_overlap_share: number;
  /** Lexical-only scores. */
  lexical: Scores;
  /** Lexical-only scores on the two halves. */
  lexical_split: Split;
  /** Lexical scores on low-overlap queries only. */
  lexical_low_overlap: Scores;
  /** Hybrid scores (null when no embedder could be loaded). */
  hybrid: Scores | null;
  /** Hybrid scores on the two halves. */
  hybrid_split: Split | null;
  /** The vector index alone (top 10 by cosine, no floor, no collapsing): the model's share. */
  vector: Scores | null;
  /** Hybrid scores on low-overlap queries only. */
  hybrid_low_overlap: Scores | null;
  /** Injections for queries without an answer. */
  no_answer: NoAnswerReport | null;
  /** Hybrid settings used. */
  settings: {
    floor: number;
    recency: number;
    lexical_cut: number;
    collapse: number;
    limit: number;
    rrf_k: number;
    depth: number;
  };
  /** The embedder, or why there is none. */
  embedder: { model: string; dim: number } | { error: string };
  /** Floor × lexical cut × recency × collapsing sweep (full mode). */
  sweep: SweepRow[];
  /** The sweep row best on the tuning half (recall@5 + MRR), to read on the held-out half. */
  tuned: SweepRow | null;
  /** Per-query ranks of the first relevant record (0 = not in the top 10). */
  per_query: { id: string; overlap: number; lexical_rank: number; hybrid_rank: number | null }[];
}

/** Runs the evaluation. */
export async function runEval(config: EvalConfig): Promise<QualityReport> {
  const set = await loadQualitySet();
  const records = selectRecords(set, config);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-quality-" });
  const storage = openSqliteStorage(join(dir, "quality.db"));
  let embedder: Embedder | null = null;
  try {
    const byKey = toMemoryRecords(records);
    const keyOf = new Map([...byKey].map(([k, r]) => [r.record_id, k]));
    await storage.commitExtraction({
      consumedSeqs: [],
      records: [...byKey.values()].map((record) => ({ record })),
    });
    const queries = set.queries;
    const lexical = await rank(
      storage,
      queries,
      keyOf,
      config.limit,
      (q, limit) => storage.searchLexical(QUALITY_NAMESPACE, q, { limit }),
    );

    let embedderInfo: QualityReport["embedder"];
    try {
      embedder = withInputVersion(await createUseLiteEmbedder({ sandbox: false }));
      embedderInfo = { model: embedder.model_id, dim: embedder.dim };
    } catch (error) {
      embedderInfo = { error: error instanceof Error ? error.message : String(error) };
    }
    const floor = Number.isNaN(config.floor) ? minSimilarityFor(embedder?.model_id) : config.floor;
    const overlap = new Map(queries.map((q) => [q.id, overlapOf(set, q)]));
    const low = queries.filter((q) => q.relevant.length > 0 && overlap.get(q.id)! <= LOW_OVERLAP);
    const report: QualityReport = {
      mode: config.mode,
      records: records.length,
      queries: queries.length,
      answerable: queries.filter((q) => q.relevant.length > 0).length,
      low_overlap_share: round(low.length / queries.filter((q) => q.relevant.length > 0).length),
      lexical: roundScores(score(queries, lexical)),
      lexical_split: split(queries, lexical),
      lexical_low_overlap: roundScores(score(low, lexical)),
      hybrid: null,
      hybrid_split: null,
      vector: null,
      hybrid_low_overlap: null,
      no_answer: null,
      settings: {
        floor,
        recency: config.recency,
        lexical_cut: config.lexicalCut,
        collapse: config.collapse,
        limit: config.limit,
        rrf_k: 60,
        depth: 4,
      },
      embedder: embedderInfo,
      sweep: [],
      tuned: null,
      per_query: [],
    };
    const firstRank = (ranked: string[] | undefined, q: SetQuery) =>
      (ranked ?? []).slice(0, 10).findIndex((k) => q.relevant.includes(k)) + 1;
    if (embedder) {
      const current = embedder;
      const all = [...byKey.values()];
      const vectors = await embedCached(
        current,
        all.map((r) => composeEmbeddingInput(r)),
        config.cache,
      );
      await storage.putEmbeddings(all.map((r, i) => ({
        record_id: r.record_id,
        embedding: { model: current.model_id, vector: vectors[i] },
      })));
      const index = new VectorIndex(storage, { model: current.model_id, dim: current.dim });
      await index.load(QUALITY_NAMESPACE);
      const queryVectors = new Map<string, Float32Array>();
      for (const q of queries) {
        queryVectors.set(q.query, (await current.embed([queryEmbeddingInput(q.query)]))[0]);
      }
      const vectorOnly: Rankings = new Map();
      for (const q of queries) {
        const hits = await index.search(QUALITY_NAMESPACE, queryVectors.get(q.query)!, {
          k: config.limit,
        });
        vectorOnly.set(q.id, hits.map((h) => keyOf.get(h.record_id)!));
      }
      report.vector = roundScores(score(queries, vectorOnly));
      const hybridAt = async (floor: number, recency: number, cut: number, collapse: number) => {
        const search = createHybridSearcher({
          searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
          getRecords: (ids) => storage.getRecords(ids),
          embedQuery: (text) => Promise.resolve(queryVectors.get(text) ?? null),
          searchVectors: (ns, v, o) => index.search(ns, v, o),
        }, {
          minSimilarity: floor,
          recencyWeight: recency,
          lexicalCut: cut,
          collapseAbove: collapse,
          embedTimeoutMs: 10_000,
        });
        return await rank(
          storage,
          queries,
          keyOf,
          config.limit,
          (q, limit) => search(QUALITY_NAMESPACE, q, { limit }),
        );
      };
      const noAnswer = queries.filter((q) => q.relevant.length === 0);
      const fromVectorsAlone = (hybrid: Rankings) =>
        noAnswer.reduce((n, q) => {
          const lex = new Set(lexical.get(q.id));
          return n + (hybrid.get(q.id) ?? []).filter((k) => !lex.has(k)).length;
        }, 0) / Math.max(noAnswer.length, 1);
      const hybrid = await hybridAt(floor, config.recency, config.lexicalCut, config.collapse);
      report.hybrid = roundScores(score(queries, hybrid));
      report.hybrid_split = split(queries, hybrid);
      report.hybrid_low_overlap = roundScores(score(low, hybrid));
      const mean = (r: Rankings) =>
        noAnswer.reduce((n, q) => n + (r.get(q.id)?.length ?? 0), 0) / Math.max(noAnswer.length, 1);
      report.no_answer = {
        queries: noAnswer.length,
        lexical_injected: round(mean(lexical)),
        hybrid_injected: round(mean(hybrid)),
        hybrid_vector_only: round(fromVectorsAlone(hybrid)),
      };
      if (config.sweep) {
        for (const collapse of [1.01, 0.95, 0.9, 0.85]) {
          for (const recency of [0, 0.25, 0.5]) {
            for (const cut of [0, 0.3, 0.5, 0.7]) {
              for (const f of [0, 0.3, 0.35, 0.4, 0.45, 0.5]) {
                const r = await hybridAt(f, recency, cut, collapse);
                report.sweep.push({
                  floor: f,
                  cut,
                  recency,
                  collapse,
                  scores: roundScores(score(queries, r)),
                  split: split(queries, r),
                  no_answer_vector_only: round(fromVectorsAlone(r)),
                });
              }
            }
          }
        }
        // Chosen on the tuning half only; ties go to the earlier (simpler) row.
        const objective = (row: SweepRow) => row.split.tune.recall_at_5 + row.split.tune.mrr;
        report.tuned = report.sweep.reduce((a, b) => objective(b) > objective(a) + 1e-9 ? b : a);
      }
      report.per_query = queries.filter((q) => q.relevant.length > 0).map((q) => ({
        id: q.id,
        overlap: round(overlap.get(q.id)!),
        lexical_rank: firstRank(lexical.get(q.id), q),
        hybrid_rank: firstRank(hybrid.get(q.id), q),
      }));
    } else {
      report.per_query = queries.filter((q) => q.relevant.length > 0).map((q) => ({
        id: q.id,
        overlap: round(overlap.get(q.id)!),
        lexical_rank: firstRank(lexical.get(q.id), q),
        hybrid_rank: null,
      }));
    }
    return report;
  } finally {
    await embedder?.close();
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Scores on the even-numbered (tuning) and odd-numbered (held-out) queries. */
export function split(queries: readonly SetQuery[], rankings: Rankings): Split {
  const parity = (q: SetQuery) => Number(q.id.replace(/\D/g, "")) % 2;
  return {
    tune: roundScores(score(queries.filter((q) => parity(q) === 0), rankings)),
    held_out: roundScores(score(queries.filter((q) => parity(q) === 1), rankings)),
  };
}

function roundScores(s: Scores): Scores {
  return { recall_at_5: round(s.recall_at_5), mrr: round(s.mrr), queries: s.queries };
}

/** Quick mode keeps every labelled and hand-written record and the first template distractors. */
function selectRecords(set: QualitySet, config: EvalConfig) {
  if (config.mode === "full") return set.records;
  let kept = 0;
  return set.records.filter((r) => !r.key.startsWith("gen-") || kept++ < config.quickDistractors);
}

function overlapOf(set: QualitySet, q: SetQuery): number {
  if (q.relevant.length === 0) return 0;
  // A query is as easy as its easiest target.
  return Math.max(
    ...q.relevant.map((k) => wordOverlap(q.query, set.records.find((r) => r.key === k)!)),
  );
}

async function rank(
  _storage: SqliteStorage,
  queries: readonly SetQuery[],
  keyOf: Map<string, string>,
  limit: number,
  search: (query: string, limit: number) => Promise<{ record: MemoryRecord }[]>,
): Promise<Rankings> {
  const out: Rankings = new Map();
  for (const q of queries) {
    const hits = await search(q.query, limit);
    out.set(q.id, hits.map((h) => keyOf.get(h.record.record_id)!));
  }
  return out;
}

/** The summary line. */
export function summaryLine(report: QualityReport): string {
  const lex = `lexical recall@5 ${report.lexical.recall_at_5.toFixed(2)} MRR ${
    report.lexical.mrr.toFixed(2)
  }`;
  const hyb = report.hybrid
    ? `hybrid recall@5 ${report.hybrid.recall_at_5.toFixed(2)} MRR ${report.hybrid.mrr.toFixed(2)}`
    : `hybrid n/a (${"error" in report.embedder ? report.embedder.error : "no embedder"})`;
  return `quality: ${lex} | ${hyb} (${report.answerable} queries, ${report.records} records)`;
}

if (import.meta.main) {
  const config = parseEvalArgs(Deno.args);
  const report = await runEval(config);
  console.log(summaryLine(report));
  const pct = (x: number) => x.toFixed(2);
  console.log(
    `quality: low-overlap queries ${
      Math.round(report.low_overlap_share * 100)
    }% — lexical recall@5 ${pct(report.lexical_low_overlap.recall_at_5)}${
      report.hybrid_low_overlap ? `, hybrid ${pct(report.hybrid_low_overlap.recall_at_5)}` : ""
    }`,
  );
  if (report.no_answer) {
    console.log(
      `quality: ${report.no_answer.queries} queries without an answer inject ${report.no_answer.lexical_injected} (lexical) / ${report.no_answer.hybrid_injected} (hybrid, ${report.no_answer.hybrid_vector_only} from vectors alone) records on average`,
    );
  }
  const both = (s: Scores) => `${pct(s.recall_at_5)}/${pct(s.mrr)}`;
  if (report.vector && report.hybrid_split) {
    console.log(
      `quality: vector index alone recall@5 ${pct(report.vector.recall_at_5)} MRR ${
        pct(report.vector.mrr)
      }; recall@5/MRR on even (tuning) | odd (held-out) queries: lexical ${
        both(report.lexical_split.tune)
      } | ${both(report.lexical_split.held_out)}, hybrid ${both(report.hybrid_split.tune)} | ${
        both(report.hybrid_split.held_out)
      }`,
    );
  }
  const row = (r: SweepRow) =>
    `floor ${r.floor.toFixed(2)} cut ${r.cut.toFixed(1)} recency ${r.recency.toFixed(2)} collapse ${
      r.collapse > 1 ? "off " : r.collapse.toFixed(2)
    }  recall@5/MRR all ${both(r.scores)}  even ${both(r.split.tune)}  odd ${
      both(r.split.held_out)
    }  no-answer vector-only ${r.no_answer_vector_only}`;
  for (const r of report.sweep) console.log(`quality: sweep ${row(r)}`);
  if (report.tuned) console.log(`quality: best on the even queries: ${row(report.tuned)}`);
  await Deno.mkdir(dirname(config.out), { recursive: true });
  await Deno.writeTextFile(config.out, JSON.stringify(report, null, 2) + "\n");
}
