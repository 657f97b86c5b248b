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
   * When the prompt was asked (the fixing commit's date), when known: a time-aware run leaves
   * out the records made after it, which a memory could not hold yet.
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

/**
 * Gives each query its `fixed_at`, its fixing commit's date (`fixing_sha`, read with `git log`
 * from clones of the set's repositories), so it can be scored against the records made by then
 * (`collect`'s `asOf`), the memory the developer had when asking. Throws, changing nothing, when
 * a fixing commit is in none of the clones.
 */
export async function addFixDates(
  queries: RealQuery[],
  clones: readonly string[],
): Promise<void> {
  const dates = new Map<string, string>();
  for (const clone of clones) {
    const git = new Deno.Command("git", {
      args: ["-C", clone, "log", "--no-walk", "--format=%H %cI", "--ignore-missing", "--stdin"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = git.stdin.getWriter();
    // Git that fails at once (no repository there) closes its stdin: its exit says why, not the
    // broken pipe, so the write's error is left to the check below.
    await writer.write(new TextEncoder().encode(queries.map((q) => q.fixing_sha ?? "").join("\n")))
      .then(() => writer.close()).catch(() => {});
    const out = await git.output();
    if (!out.success) {
      throw new Error(
        `git log in ${clone} failed (${new TextDecoder().decode(out.stderr).trim()}): ` +
          "pass clones of the set's repositories",
      );
    }
    for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
      const [sha, date] = line.split(" ");
      if (date) dates.set(sha, date);
    }
  }
  const missing = queries.filter((q) => !dates.has(q.fixing_sha ?? "")).length;
  if (missing > 0) {
    throw new Error(
      `${missing} fixing commits are in none of ${clones.join(", ")}: pass clones of the set's ` +
        "repositories (openvswitch/ovs and ovn-org/ovn) new enough to hold them",
    );
  }
  for (const q of queries) q.fixed_at = dates.get(q.fixing_sha!)!;
}
