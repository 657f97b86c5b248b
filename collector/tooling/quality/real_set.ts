/**
 * The real retrieval set (`../shared/quality/fixes-dev`: commit records of two public projects
 * and the subjects of the commits that fixed them) and the no-answer prompts, with the metrics
 * of its scorer (recall@5 and MRR@10 over the top 10, micro-averaged, per repository).
 *
 * @module
 */
import { fileURLToPath as fromFileUrl } from "node:url";
import { type MemoryRecord, MemoryRecordSchema } from "@kiro-learn/core/schemas";

/** Where the development split lives, relative to the repository root. */
export const DEFAULT_REAL_SET_DIR: string = fromFileUrl(
  new URL("../../../../shared/quality/fixes-dev", import.meta.url),
);

/** The repository the reranker is trained on; the other one is held out. */
export const TRAIN_REPO = "openvswitch/ovs";

/** One query of the set. */
export interface RealQuery {
  /** Its id. */
  query_id: string;
  /** The prompt (a fixing commit's subject). */
  query: string;
  /** The namespace to search. */
  namespace: string;
  /** The records that answer it. */
  relevant: string[];
  /** `owner/name` of the repository. */
  repo: string;
  /** The fixing commit, when the set names it. */
  fixing_sha?: string;
  /**
   * When the prompt was asked (the fixing commit's committer date, in the records' `created_at`
   * form): the as-of replay asks it of the records made by then, the memory the developer had.
   */
  fixed_at?: string;
}

/** The set, loaded. */
export interface RealSet {
  /** Memory records, valid for our schema (strategy `mcp_observation`). */
  records: MemoryRecord[];
  /** The queries. */
  queries: RealQuery[];
  /** Namespace → repository. */
  repos: Map<string, string>;
}

/** Loads the set from `dir`; a clear error when it is not there. */
export async function loadRealSet(dir: string = DEFAULT_REAL_SET_DIR): Promise<RealSet> {
  let recordsText: string, queriesText: string;
  try {
    recordsText = await Deno.readTextFile(`${dir}/records.jsonl`);
    queriesText = await Deno.readTextFile(`${dir}/queries.jsonl`);
  } catch (error) {
    throw new Error(
      `the real retrieval set is not at ${dir} (${error}): pass --data=<dir with records.jsonl ` +
        "and queries.jsonl>",
    );
  }
  const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");
  const records = lines(recordsText).map((line) => {
    const raw = JSON.parse(line);
    return MemoryRecordSchema.parse({ ...raw, strategy: "mcp_observation" });
  });
  const queries: RealQuery[] = lines(queriesText).map((line) => JSON.parse(line));
  const repos = new Map(queries.map((q) => [q.namespace, q.repo]));
  return { records, queries, repos };
}

/** The prompts with nothing relevant in memory (`data/no_answer.txt`). */
export async function loadNoAnswerPrompts(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("./data/no_answer.txt", import.meta.url));
  return text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
}

/** Running recall@5 and MRR@10 of one group of queries. */
export interface Scores {
  /** Queries scored. */
  n: number;
  /** Sum of recall@5. */
  recall5: number;
  /** Sum of reciprocal ranks (top 10). */
  mrr10: number;
}

/** Adds one query's ranking (record ids, best first) to `scores`. */
export function addRanking(
  scores: Scores,
  ranking: readonly string[],
  options: { relevant: readonly string[] },
): void {
  const relevant = new Set(options.relevant);
  const top = ranking.slice(0, 10);
  scores.n++;
  scores.recall5 += top.slice(0, 5).filter((id) => relevant.has(id)).length / relevant.size;
  const first = top.findIndex((id) => relevant.has(id));
  scores.mrr10 += first >= 0 ? 1 / (first + 1) : 0;
}

/** Empty scores. */
export function emptyScores(): Scores {
  return { n: 0, recall5: 0, mrr10: 0 };
}

/** `recall@5 / MRR@10` averages of `scores`. */
export function averages(scores: Scores): { recall5: number; mrr10: number; n: number } {
  const n = Math.max(scores.n, 1);
  return { recall5: scores.recall5 / n, mrr10: scores.mrr10 / n, n: scores.n };
}

/** One step of an as-of replay: the records to save, then the query to ask. */
export interface AsOfStep {
  /** The query, asked once `batch` is saved. */
  query: RealQuery;
  /** Records of the query's namespace made by its `fixed_at` and not saved by an earlier step. */
  batch: MemoryRecord[];
  /** Records of the namespace saved once this step's batch is (the memory the query meets). */
  pool: number;
}

/**
 * The as-of protocol (the set's `score_api.py --as-of`): per namespace (in the order of their
 * repositories' names), the queries in `fixed_at` order, each preceded by the records made by
 * its `fixed_at` that are not saved yet (and any of its answers still missing, which none on the
 * set is: an answer cannot be newer than its fix). A query asks the memory the developer had when
 * the fix was written, never a record made after it. `queries` may be a subset of the set's; a
 * query without `fixed_at` is an error (the set's queries all carry one).
 */
export function* asOfSteps(
  records: readonly MemoryRecord[],
  queries: readonly RealQuery[],
): Generator<AsOfStep> {
  const undated = queries.find((q) => !q.fixed_at);
  if (undated) {
    throw new Error(
      `query ${undated.query_id} has no fixed_at: the as-of replay needs each fix's date`,
    );
  }
  const byTime = <T>(at: (x: T) => string) => (a: T, b: T) =>
    at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0;
  const namespaces = [...new Map(queries.map((q) => [q.namespace, q.repo]))]
    .sort((a, b) => a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  for (const [namespace] of namespaces) {
    const recs = records.filter((r) => r.namespace === namespace)
      .sort(byTime((r) => r.created_at));
    const byId = new Map(recs.map((r) => [r.record_id, r]));
    const qs = queries.filter((q) => q.namespace === namespace)
      .sort((a, b) =>
        byTime<RealQuery>((q) => q.fixed_at!)(a, b) || byTime<RealQuery>((q) => q.query_id)(a, b)
      );
    const saved = new Set<string>();
    let next = 0;
    for (const query of qs) {
      const batch: MemoryRecord[] = [];
      for (; next < recs.length && recs[next].created_at <= query.fixed_at!; next++) {
        if (!saved.has(recs[next].record_id)) batch.push(recs[next]);
      }
      for (const id of query.relevant) {
        const r = byId.get(id);
        if (r && !saved.has(id) && !batch.includes(r)) batch.push(r);
      }
      for (const r of batch) saved.add(r.record_id);
      yield { query, batch, pool: saved.size };
    }
  }
}

/** Share of `samples` whose answer is among their candidates (`ids`), per repository and overall. */
export function candidateRecall(
  samples: readonly { query: RealQuery; ids: readonly string[] }[],
): Map<string, number> {
  const hits = new Map<string, [number, number]>();
  for (const s of samples) {
    const hit = s.ids.some((id) => s.query.relevant.includes(id)) ? 1 : 0;
    for (const key of [s.query.repo, "all"]) {
      const [h, n] = hits.get(key) ?? [0, 0];
      hits.set(key, [h + hit, n + 1]);
    }
  }
  return new Map([...hits].map(([k, [h, n]]) => [k, h / n]));
}
