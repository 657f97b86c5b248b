/**
 * How long a record's embedding input should be: vector-only retrieval on the real set for
 * several cuts of `composeEmbeddingInput`, with the tokens per record each cut costs (the
 * model's time is linear in tokens, so the cut is the backfill's speed).
 *
 * Per repository, the queries are an even spread of its real prompts and the records every
 * answer plus an even spread of the others (`--pool`, so each cut embeds a few thousand texts,
 * not the whole set); queries use the collector's own query input. The model is the collector's
 * own use-lite embedder (one Worker), tokens counted by its tokeniser.
 *
 * ```sh
 * deno run -A collector/tooling/quality/embedding_cut_experiment.ts \
 *   --data=../shared/quality/fixes-dev [--cuts=200,160,120,100,80] [--pool=1215] [--queries=300]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  createUseLiteEmbedder,
  cutAtWord,
  embeddingText,
  queryEmbeddingInput,
} from "../../daemon/embedding/mod.ts";
import { dot } from "@kiro-learn/core/search";
import {
  addRanking,
  averages,
  DEFAULT_REAL_SET_DIR,
  emptyScores,
  loadRealSet,
} from "./real_set.ts";
import { evenly } from "./backfill_bench.ts";
import { embedInBatches } from "./_embed_batches.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    data: { type: "string", default: DEFAULT_REAL_SET_DIR },
    cuts: { type: "string", default: "200,160,120,100,80" },
    pool: { type: "string", default: "1215" },
    queries: { type: "string", default: "300" },
    repos: { type: "string", default: "openvswitch/ovs,ovn-org/ovn" },
  },
});
const cuts = args.cuts.split(",").map(Number);
const pool = Number(args.pool);
const queryCount = Number(args.queries);

const set = await loadRealSet(args.data);
const embedder = await createUseLiteEmbedder({ sandbox: false, workers: 1 });

async function tokensPerText(texts: string[]): Promise<number> {
  const counts = await embedder.tokenCounts!(texts);
  return counts.reduce((a, b) => a + b, 0) / texts.length;
}

console.log("| repository | cut (chars) | tokens per record | recall@5 | MRR@10 |");
console.log("|---|---|---|---|---|");
for (const repo of args.repos.split(",")) {
  const queries = evenly(set.queries.filter((q) => q.repo === repo), queryCount);
  if (queries.length === 0) throw new Error(`no queries of ${repo} in ${args.data}`);
  const relevant = new Set(queries.flatMap((q) => q.relevant));
  const all = set.records.filter((r) => r.namespace === queries[0].namespace);
  const others = all.filter((r) => !relevant.has(r.record_id));
  const records = [
    ...all.filter((r) => relevant.has(r.record_id)),
    ...evenly(others, Math.max(0, pool - relevant.size)),
  ];
  const queryVectors = await embedInBatches(
    embedder,
    queries.map((q) => queryEmbeddingInput(q.query)),
  );
  for (const cut of cuts) {
    const texts = records.map((r) => cutAtWord(embeddingText(r), cut));
    const tokens = await tokensPerText(texts);
    const vectors = await embedInBatches(embedder, texts);
    const scores = emptyScores();
    queries.forEach((q, i) => {
      const ranking = records.map((r, j) =>
        [r.record_id, dot(queryVectors[i], vectors[j])] as const
      )
        .sort((a, b) => b[1] - a[1]).map(([id]) => id);
      addRanking(scores, ranking, { relevant: q.relevant });
    });
    const a = averages(scores);
    console.log(
      `| ${repo} (${records.length} records, ${queries.length} queries) | ${cut} | ${
        tokens.toFixed(1)
      } | ${a.recall5.toFixed(3)} | ${a.mrr10.toFixed(3)} |`,
    );
  }
}
await embedder.close();
