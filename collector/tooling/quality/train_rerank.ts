/**
 * Trains the reranker's weights and its no-answer gate on one repository of the real set and
 * reports the other, held out, as of each fix.
 *
 * ```sh
 * deno run -A collector/tooling/quality/train_rerank.ts            # train, report, change nothing
 * deno run -A collector/tooling/quality/train_rerank.ts --write    # …and write the weights file
 * deno run -A collector/tooling/quality/train_rerank.ts --data=DIR # another copy of the set
 * ```
 *
 * Every query is asked as of its fix ({@linkcode replayAsOf}, the protocol of `deno task quality`
 * and of the set's scorer): the history is saved in time order and each prompt meets only the
 * records made by its fixing commit's date, with the term space the collector would hold then.
 * The time columns (`record_age`, `newness_rank`) only mean something that way. Candidates come
 * from the real storage (`searchCandidatesSync`, the daemon's own code) and features from
 * `core/search/rerank.ts`, so the weights fit exactly what the collector ranks. The table shows
 * the weights trained on each repository scored on both (a change ships when it gains on the
 * held-out repository both ways). The model is linear; training maximises the softmax
 * probability of the right record among a query's candidates (listwise), with a little L2 so no
 * feature takes over.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath as fromFileUrl } from "node:url";
import {
  GATE_IGNORED_FEATURES,
  gateScore,
  type LexicalCandidate,
  type LexicalCandidates,
  linearScore,
  RERANK_FEATURES,
  RERANK_MODEL,
  rerankFeatures,
  type RerankModel,
  type TermSpace,
  trainRecordTermSpace,
  type WeightedTerm,
} from "@kiro-learn/core/search";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { CANDIDATE_DEPTH } from "../../daemon/retrieval/mod.ts";
import {
  TERM_SPACE_MIN_RECORDS,
  termSpaceDocPages,
  trainingDue,
} from "../../daemon/term_spaces/mod.ts";
import {
  addRanking,
  asOfSteps,
  averages,
  candidateRecall,
  emptyScores,
  loadNoAnswerPrompts,
  loadRealSet,
  type RealQuery,
  TRAIN_REPO,
} from "./real_set.ts";

const WEIGHTS_FILE = fromFileUrl(
  new URL("../../../core/search/data/rerank_weights.json", import.meta.url),
);

/**
 * Share of the fitting half of the no-answer prompts the gate must silence: a margin, so that
 * the held-out half (and the benchmark's whole list) stays at 95% or more.
 */
const GATE_TARGET = 0.97;

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
 * column from `spaces` (per namespace), neutral for a namespace without one. The whole store is
 * searched (what the no-answer gate is fitted on); {@linkcode replayAsOf} gives the queries'
 * samples as of each fix.
 */
export function collect(
  storage: SqliteStorage,
  queries: readonly RealQuery[],
  options: { spaces?: ReadonlyMap<string, TermSpace>; keep?: boolean } = {},
): Sample[] {
  return queries.map((query) => {
    const found = storage.searchCandidatesSync(query.namespace, query.query, {
      limit: CANDIDATE_DEPTH,
    });
    const space = options.spaces?.get(query.namespace) ?? null;
    return sampleOf(query, found, { space, keep: options.keep });
  });
}

function sampleOf(
  query: RealQuery,
  found: LexicalCandidates,
  options: { space: TermSpace | null; keep?: boolean },
): Sample {
  const { candidates, terms, newest } = found;
  return {
    query,
    ids: candidates.map((c) => c.record.record_id),
    features: rerankFeatures(query.query, candidates, { terms, space: options.space, newest }),
    ...(options.keep ? { candidates, terms } : {}),
  };
}

/**
 * The as-of protocol in-process, as `deno task quality` and the set's scorer run it through a
 * collector ({@linkcode asOfSteps}): each namespace's records saved in time order into `storage`
 * (empty), each query asked once the records made by its fix are in, with the term space the
 * collector would hold then (trained by the collector's rule, `trainingDue`, from the same
 * reader and training). Returns one sample per query, in replay order.
 */
export async function replayAsOf(
  storage: SqliteStorage,
  set: { records: readonly MemoryRecord[]; queries: readonly RealQuery[] },
  options: { keep?: boolean } = {},
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const trained = new Map<string, { records: number; space: TermSpace }>();
  for (const step of asOfSteps(set.records, set.queries)) {
    for (const record of step.batch) await storage.putRecord(record);
    const ns = step.query.namespace;
    if (
      trainingDue(step.pool, {
        trained: trained.get(ns)?.records ?? 0,
        minRecords: TERM_SPACE_MIN_RECORDS,
      })
    ) {
      const docs = [];
      for await (const page of termSpaceDocPages(storage, ns)) docs.push(...page);
      trained.set(ns, { records: step.pool, space: trainRecordTermSpace(docs) });
    }
    const found = storage.searchCandidatesSync(ns, step.query.query, { limit: CANDIDATE_DEPTH });
    samples.push(
      sampleOf(step.query, found, { space: trained.get(ns)?.space ?? null, keep: options.keep }),
    );
  }
  return samples;
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
 * Logistic regression: real questions (1) against no-answer prompts (0), balanced. The weights
 * of `GATE_IGNORED_FEATURES` stay 0: whether a namespace has a space yet, or how old its records
 * are, must not change what the gate lets through.
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
      if (!GATE_IGNORED_FEATURES.includes(j)) w[j] -= 1.0 * (grad[j] / 2 + 1e-3 * w[j]);
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
    options: { write: { type: "boolean" }, data: { type: "string" } },
  });
  const set = await loadRealSet(values.data);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-train-" });
  const storage = openSqliteStorage(`${dir}/train.db`);
  try {
    const started = performance.now();
    const samples = await replayAsOf(storage, set);
    console.log(
      `replayed ${set.records.length} records and ${samples.length} queries as of each fix in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
    const trainSet = samples.filter((s) => s.query.repo === TRAIN_REPO);
    const weights = train(trainSet, TRAIN_OPTIONS);
    // The other direction: a change ships when it gains on the held-out repository both ways.
    const reverse = train(samples.filter((s) => s.query.repo !== TRAIN_REPO), TRAIN_OPTIONS);
    const recall = candidateRecall(samples);
    console.log(
      `candidate recall (the answer among the ${CANDIDATE_DEPTH} candidates, the reranker's ` +
        `ceiling): ${[...recall].map(([k, v]) => `${k} ${v.toFixed(3)}`).join("   ")}`,
    );
    printTable("BM25 order", table(samples, (s) => s.ids));
    printTable("shipped weights", table(samples, (s) => rank(s, RERANK_MODEL.weights).ids));
    printTable("trained now", table(samples, (s) => rank(s, weights).ids));
    printTable("trained on the other", table(samples, (s) => rank(s, reverse).ids));

    // The no-answer prompts meet the whole store, with the spaces the collector ends up with.
    const spaces = await trainSpaces(storage, set.repos.keys());
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
    console.log(
      `trained on the other: ${
        JSON.stringify(Object.fromEntries(RERANK_FEATURES.map((f, i) => [f, reverse[i]])))
      }`,
    );
    if (values.write) {
      await Deno.writeTextFile(WEIGHTS_FILE, JSON.stringify(model, null, 2) + "\n");
      console.log(`wrote ${WEIGHTS_FILE}`);
    }
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}
