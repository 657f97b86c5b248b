/**
 * Trains the reranker's weights and its no-answer gate on one repository of the real set and
 * reports the other, held out.
 *
 * ```sh
 * deno run -A collector/tooling/quality/train_rerank.ts            # train, report, change nothing
 * deno run -A collector/tooling/quality/train_rerank.ts --write    # …and write the weights file
 * deno run -A collector/tooling/quality/train_rerank.ts --data=DIR # another copy of the set
 * deno run -A collector/tooling/quality/train_rerank.ts --fix-clones=OVS,OVN # …and as of each fix
 * ```
 *
 * With `--fix-clones` (clones of the set's repositories, for the fixing commits' dates) the same
 * weights are also scored as of each fix: every prompt against the records made by its fixing
 * commit's date, the memory the developer had (the set's pool holds the whole window, records
 * made after the fix included, which no real memory holds when the question is asked). Weights
 * trained that way are scored both ways too; they are not what ships.
 *
 * Candidates come from the real storage (`searchCandidatesSync`, the daemon's own code) and
 * features from `core/search/rerank.ts`, so the weights fit exactly what the collector ranks; the
 * `term_space` column comes from each namespace's space built as the collector builds it (its
 * document reader and `trainRecordTermSpace`). The table shows the ranking with and without the
 * spaces; the gate gives that column no weight.
 * The model is linear; training maximises the softmax probability of the right record among a
 * query's candidates (listwise), with a little L2 so no feature takes over.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath as fromFileUrl } from "node:url";
import {
  gateScore,
  type LexicalCandidate,
  linearScore,
  RERANK_FEATURES,
  rerankFeatures,
  type RerankModel,
  TERM_SPACE_FEATURE,
  type TermSpace,
  trainRecordTermSpace,
  type WeightedTerm,
} from "@kiro-learn/core/search";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { CANDIDATE_DEPTH } from "../../daemon/retrieval/mod.ts";
import { termSpaceDocPages } from "../../daemon/term_spaces/mod.ts";
import {
  addFixDates,
  addRanking,
  averages,
  emptyScores,
  loadNoAnswerPrompts,
  loadRealSet,
  type RealQuery,
  TRAIN_REPO,
} from "./real_set.ts";

const WEIGHTS_FILE = fromFileUrl(
  new URL("../../../core/search/data/rerank_weights.json", import.meta.url),
);

/** Share of the fitting half of the no-answer prompts the gate must silence (margin over 90%). */
const GATE_TARGET = 0.95;

// How deep `collect` searches when it must drop the records made after the prompt: the 50 best
// made before it are nearly always among the 200 best of all.
const AS_OF_DEPTH = 4 * CANDIDATE_DEPTH;

/** One query's candidates (BM25 order) and their feature rows. */
export interface Sample {
  /** The query. */
  query: RealQuery;
  /** Candidate record ids. */
  ids: string[];
  /** One feature row per candidate. */
  features: number[][];
  /** The candidates themselves, when `collect` was asked to keep them (experiments' columns). */
  candidates?: LexicalCandidate[];
  /** The query's terms with their IDF, kept with the candidates. */
  terms?: WeightedTerm[];
}

/**
 * Each query's candidates from the real storage, with the reranker's features; the `term_space`
 * column from `spaces` (per namespace), neutral for a namespace without one. With `asOf`, only
 * records made at or before the query's `fixed_at` are candidates (BM25's best of those; its
 * IDFs stay those of the whole store): the memory as it was when the prompt was asked.
 */
export function collect(
  storage: SqliteStorage,
  queries: readonly RealQuery[],
  options: { spaces?: ReadonlyMap<string, TermSpace>; keep?: boolean; asOf?: boolean } = {},
): Sample[] {
  return queries.map((query) => {
    const at = options.asOf && query.fixed_at ? Date.parse(query.fixed_at) : Number.NaN;
    const timed = Number.isFinite(at);
    const found = storage.searchCandidatesSync(query.namespace, query.query, {
      limit: timed ? AS_OF_DEPTH : CANDIDATE_DEPTH,
    });
    const terms = found.terms;
    const candidates = timed
      ? found.candidates.filter((c) => Date.parse(c.record.created_at) <= at)
        .slice(0, CANDIDATE_DEPTH)
      : found.candidates;
    const space = options.spaces?.get(query.namespace) ?? null;
    return {
      query,
      ids: candidates.map((c) => c.record.record_id),
      features: rerankFeatures(query.query, candidates, { terms, space }),
      ...(options.keep ? { candidates, terms } : {}),
    };
  });
}

/**
 * Each namespace's term space, built as the collector builds it: the same document reader
 * (`termSpaceDocPages`) and the same training (`trainRecordTermSpace`), here in-process.
 */
export async function trainSpaces(
  storage: SqliteStorage,
  namespaces: Iterable<string>,
): Promise<Map<string, TermSpace>> {
  const spaces = new Map<string, TermSpace>();
  for (const namespace of namespaces) {
    const docs = [];
    for await (const page of termSpaceDocPages(storage, namespace)) docs.push(...page);
    const started = performance.now();
    spaces.set(namespace, trainRecordTermSpace(docs));
    console.log(
      `term space of ${namespace}: ${docs.length} records, ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
  }
  return spaces;
}

/** How the shipped weights are trained (and every experiment that compares against them). */
export const TRAIN_OPTIONS: { epochs: number; l2: number } = { epochs: 300, l2: 1e-3 };

/**
 * Listwise softmax training by full-batch gradient descent. As many weights as the samples have
 * feature columns, so an experiment can append columns of its own.
 */
export function train(
  samples: readonly Sample[],
  options: { epochs: number; l2: number },
): number[] {
  const d = samples.find((s) => s.features.length > 0)?.features[0].length ??
    RERANK_FEATURES.length;
  const w = new Array(d).fill(0);
  w[0] = 1; // start from BM25 order
  const usable = samples.filter((s) => s.ids.some((id) => s.query.relevant.includes(id)));
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const grad = new Array(d).fill(0);
    for (const s of usable) {
      const scores = s.features.map((f) => linearScore(f, w));
      const max = Math.max(...scores);
      const exp = scores.map((v) => Math.exp(v - max));
      const z = exp.reduce((a, b) => a + b, 0);
      const positive = s.ids.map((id) => s.query.relevant.includes(id) ? 1 : 0);
      const p = positive.reduce((a: number, b) => a + b, 0);
      s.features.forEach((f, k) => {
        const g = exp[k] / z - positive[k] / p;
        for (let j = 0; j < d; j++) grad[j] += g * f[j];
      });
    }
    for (let j = 0; j < d; j++) w[j] -= 0.5 * (grad[j] / usable.length + options.l2 * w[j]);
  }
  return w.map((v) => Math.round(v * 1000) / 1000);
}

/**
 * Logistic regression: real questions (1) against no-answer prompts (0), balanced. The
 * `term_space` weight stays 0: a namespace may or may not have a space yet, and that must not
 * change what the gate lets through.
 */
function trainGate(positive: readonly number[][], negative: readonly number[][]): number[] {
  const d = RERANK_FEATURES.length + 1;
  const w = new Array(d).fill(0);
  const withBias = (f: readonly number[]) => [...f, 1];
  const data = [
    ...positive.map((f) => ({ x: withBias(f), y: 1, weight: 1 / positive.length })),
    ...negative.map((f) => ({ x: withBias(f), y: 0, weight: 1 / negative.length })),
  ];
  for (let epoch = 0; epoch < 2000; epoch++) {
    const grad = new Array(d).fill(0);
    for (const { x, y, weight } of data) {
      const p = 1 / (1 + Math.exp(-linearScore(x, w)));
      for (let j = 0; j < d; j++) grad[j] += weight * (p - y) * x[j];
    }
    for (let j = 0; j < d; j++) {
      if (j !== TERM_SPACE_FEATURE) w[j] -= 1.0 * (grad[j] / 2 + 1e-3 * w[j]);
    }
  }
  return w.map((v) => Math.round(v * 1000) / 1000);
}

/** A sample's ids ordered by the linear model, and the best score. */
export function rank(sample: Sample, weights: readonly number[]): { ids: string[]; best: number } {
  const scored = sample.ids.map((id, i) => ({ id, i, s: linearScore(sample.features[i], weights) }))
    .sort((a, b) => b.s - a.s || a.i - b.i);
  return { ids: scored.map((x) => x.id), best: scored[0]?.s ?? Number.NEGATIVE_INFINITY };
}

/** recall@5 / MRR@10 per repository and overall of a ranking. */
export function table(
  samples: readonly Sample[],
  rankOf: (s: Sample) => string[],
): Map<string, ReturnType<typeof averages>> {
  const by = new Map<string, ReturnType<typeof emptyScores>>();
  const all = emptyScores();
  for (const s of samples) {
    const scores = by.get(s.query.repo) ?? by.set(s.query.repo, emptyScores()).get(s.query.repo)!;
    const ranking = rankOf(s);
    addRanking(scores, ranking, { relevant: s.query.relevant });
    addRanking(all, ranking, { relevant: s.query.relevant });
  }
  const out = new Map([...by].map(([repo, sc]) => [repo, averages(sc)]));
  out.set("all", averages(all));
  return out;
}

/** Prints one line of {@linkcode table}. */
export function printTable(label: string, rows: Map<string, ReturnType<typeof averages>>): void {
  const cells = [...rows].map(([repo, a]) =>
    `${repo === TRAIN_REPO ? `${repo} (trained on)` : repo} ${a.recall5.toFixed(3)}/${
      a.mrr10.toFixed(3)
    }`
  );
  console.log(`${label.padEnd(24)} ${cells.join("   ")}`);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      write: { type: "boolean" },
      data: { type: "string" },
      "fix-clones": { type: "string" },
    },
  });
  const set = await loadRealSet(values.data);
  const clones = values["fix-clones"]?.split(",").filter((c) => c !== "") ?? [];
  if (clones.length > 0) await addFixDates(set.queries, clones);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-train-" });
  const storage = openSqliteStorage(`${dir}/train.db`);
  try {
    const started = performance.now();
    for (const record of set.records) await storage.putRecord(record);
    console.log(
      `loaded ${set.records.length} records in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
    const spaces = await trainSpaces(storage, set.repos.keys());
    const samples = collect(storage, set.queries, { spaces });
    const trainSet = samples.filter((s) => s.query.repo === TRAIN_REPO);
    const weights = train(trainSet, TRAIN_OPTIONS);
    // The same training with the column neutral: what a namespace without a space gets.
    const without = collect(storage, set.queries);
    const withoutWeights = train(without.filter((s) => s.query.repo === TRAIN_REPO), TRAIN_OPTIONS);
    const reachable = samples.filter((s) => s.ids.some((id) => s.query.relevant.includes(id)));
    console.log(
      `the right record is among the ${CANDIDATE_DEPTH} candidates for ` +
        `${reachable.length} of ${samples.length} queries (the reranker's ceiling)`,
    );
    printTable("BM25 candidates", table(samples, (s) => s.ids));
    printTable("reranked, no term space", table(without, (s) => rank(s, withoutWeights).ids));
    printTable("reranked", table(samples, (s) => rank(s, weights).ids));
    if (clones.length > 0) {
      const asOf = collect(storage, set.queries, { spaces, asOf: true });
      printTable("BM25, as of the fix", table(asOf, (s) => s.ids));
      printTable("reranked, as of the fix", table(asOf, (s) => rank(s, weights).ids));
      // Weights fitted to that memory instead, scored both ways (they are not what ships).
      const asOfWeights = train(asOf.filter((s) => s.query.repo === TRAIN_REPO), TRAIN_OPTIONS);
      printTable("trained as of the fix", table(samples, (s) => rank(s, asOfWeights).ids));
      printTable("…and scored as of it", table(asOf, (s) => rank(s, asOfWeights).ids));
    }

    // The gate: a logistic model over the best candidate's features, trained to tell the
    // train repository's real questions from no-answer prompts (asked in every namespace), with
    // its threshold set so that GATE_TARGET of the no-answer prompts inject nothing.
    const noAnswer = await loadNoAnswerPrompts();
    const namespaces = [...set.repos.keys()];
    const noAnswerSamples = namespaces.flatMap((ns) =>
      collect(
        storage,
        noAnswer.map((q, i) => ({
          query_id: `none-${i}`,
          query: q,
          namespace: ns,
          relevant: [],
          repo: "none",
        })),
        { spaces },
      )
    );
    const bestFeatures = (s: Sample) => {
      const top = rank(s, weights).ids[0];
      return top === undefined ? null : s.features[s.ids.indexOf(top)];
    };
    // Even-numbered no-answer prompts fit the gate; the odd-numbered ones check it.
    const fit = noAnswerSamples.filter((s) => Number(s.query.query_id.slice(5)) % 2 === 0);
    const check = noAnswerSamples.filter((s) => Number(s.query.query_id.slice(5)) % 2 === 1);
    const gateWeights = trainGate(
      trainSet.map(bestFeatures).filter((f) => f !== null),
      fit.map(bestFeatures).filter((f) => f !== null),
    );
    const draft: RerankModel = { weights, gateWeights, gate: 0 };
    const gateOf = (s: Sample) => {
      const f = bestFeatures(s);
      return f === null ? 0 : gateScore(f, draft);
    };
    const fitScores = fit.map(gateOf).sort((a, b) => a - b);
    const gate = Math.ceil(fitScores[Math.ceil(fitScores.length * GATE_TARGET) - 1] * 1000) /
      1000;
    const silenced = check.map(gateOf).filter((v) => v < gate).length / check.length;
    const model: RerankModel = { weights, gateWeights, gate };
    printTable(
      "reranked, gated",
      table(samples, (s) => {
        const f = bestFeatures(s);
        return f === null || gateScore(f, model) < gate ? [] : rank(s, weights).ids;
      }),
    );
    console.log(
      `gate ${gate}: ${(silenced * 100).toFixed(1)}% of the ${check.length} held-out no-answer ` +
        "prompts inject nothing",
    );
    console.log(JSON.stringify(Object.fromEntries(RERANK_FEATURES.map((f, i) => [f, weights[i]]))));
    if (values.write) {
      await Deno.writeTextFile(WEIGHTS_FILE, JSON.stringify(model, null, 2) + "\n");
      console.log(`wrote ${WEIGHTS_FILE}`);
    }
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}
