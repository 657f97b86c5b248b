/**
 * Would a non-linear model rank the reranker's candidates better than the linear one, over the
 * same features? The shipped model is a weighted sum of `core/search/rerank.ts`'s features; a
 * quarter of the prompts whose answer is among BM25's 50 candidates still miss the top 5, and
 * more candidates did not help (`candidate_experiment.ts`) because the linear model could not
 * promote them. Each variant here is trained on the same samples as `train_rerank.ts` (the
 * collector's candidates and features, term spaces included) and scored three ways:
 *
 * - across repositories: trained on ovs with ovn held out, and the other way round;
 * - within each repository: two folds (even / odd queries), to tell "no signal" from "a signal
 *   that does not travel";
 * - with `--git=DIR`, on a history nobody tuned on: that repository's `Fixes:` queries
 *   (`git_fixes_eval.ts`'s, its records put straight into storage), ranked by the models
 *   trained on each repository of the set and on both together.
 * - with `--external --git=DIR,DIR,…` (two or more clones), trained on those histories only:
 *   pooled, with both repositories of the set held out; each history held out of the others
 *   (leave one out); and the histories plus one repository of the set, the other held out. Each
 *   column is paired against the shipped weights (`core/search/data/rerank_weights.json`).
 *
 * Models (all deterministic):
 * - `linear`: `train_rerank.ts`'s listwise softmax model, optionally with per-query columns
 *   appended (each feature's z-score among the query's candidates, or its inverse rank among
 *   them) or every pairwise product of the features.
 * - `gbrt`: gradient-boosted regression trees (histogram splits, Newton leaves), either on the
 *   listwise softmax loss or LambdaMART's NDCG-weighted pairs, from zero or on top of the
 *   linear model's score.
 * - `mlp`: one tanh hidden layer plus a linear skip over standardised features, on the listwise
 *   softmax loss, trained with Adam.
 *
 * ```sh
 * deno run -A collector/tooling/quality/rerank_model_experiment.ts --data=DIR [--git=/tmp/dpdk] \
 *   [--variants=linear,gbrt-softmax-d3]
 * deno run -A collector/tooling/quality/rerank_model_experiment.ts --data=DIR --external \
 *   --git=/tmp/dpdk,/tmp/rdma-core,/tmp/xen [--variants=linear-1000,linear+zscore]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { linearScore, RERANK_MODEL } from "@kiro-learn/core/search";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { commitRecord } from "../../cli/mod.ts";
import { fixesQueries, windowCommits } from "./git_fixes_eval.ts";
import { addRanking, averages, emptyScores, loadRealSet, TRAIN_REPO } from "./real_set.ts";
import { collect, type Sample, train, TRAIN_OPTIONS, trainSpaces } from "./train_rerank.ts";

/** Scores a query's candidates (one feature row each); higher ranks first. */
type Scorer = (rows: readonly number[][]) => number[];

/** Per-query columns appended to every row before the model sees it. */
type Columns = "none" | "zscore" | "rank" | "max+rank" | "pairs";

interface GbrtOptions {
  trees: number;
  depth: number;
  rate: number;
  minLeaf: number;
  lambda: number;
  loss: "softmax" | "lambdarank";
  onLinear: boolean;
}

interface MlpOptions {
  hidden: number;
  epochs: number;
  rate: number;
  l2: number;
}

interface Variant {
  name: string;
  columns: Columns;
  fit: (samples: readonly Sample[]) => Scorer;
}

function linearFit(epochs: number): (samples: readonly Sample[]) => Scorer {
  return (samples) => {
    const w = train(samples, { epochs, l2: 1e-3 });
    return (rows) => rows.map((r) => linearScore(r, w));
  };
}

const VARIANTS: Variant[] = [
  { name: "linear", columns: "none", fit: linearFit(300) },
  { name: "linear-1000", columns: "none", fit: linearFit(1000) },
  { name: "linear+zscore", columns: "zscore", fit: linearFit(300) },
  { name: "linear+rank", columns: "rank", fit: linearFit(300) },
  { name: "linear+pairs", columns: "pairs", fit: linearFit(300) },
  ...([
    ["gbrt-lambdarank-d3", { trees: 100, depth: 3, rate: 0.1, minLeaf: 50, lambda: 1 }],
    ["gbrt-softmax-d3", { trees: 100, depth: 3, rate: 0.05, minLeaf: 200, lambda: 10 }],
    ["gbrt-softmax-d2", { trees: 200, depth: 2, rate: 0.05, minLeaf: 200, lambda: 10 }],
    ["gbrt-softmax-d4", { trees: 100, depth: 4, rate: 0.05, minLeaf: 500, lambda: 10 }],
    ["gbrt-on-linear-d3", { trees: 50, depth: 3, rate: 0.05, minLeaf: 200, lambda: 10 }],
    ["gbrt-on-linear-d1", { trees: 200, depth: 1, rate: 0.05, minLeaf: 200, lambda: 10 }],
    ["gbrt-softmax-d3+max+rank", { trees: 100, depth: 3, rate: 0.05, minLeaf: 200, lambda: 10 }],
  ] as const).map(([name, o]): Variant => ({
    name,
    columns: name.endsWith("+max+rank") ? "max+rank" : "none",
    fit: (samples) =>
      gbrtFit(samples, {
        ...o,
        loss: name.includes("lambdarank") ? "lambdarank" : "softmax",
        onLinear: name.includes("on-linear"),
      }),
  })),
  ...([
    ["mlp-8", { hidden: 8, epochs: 150, rate: 0.01, l2: 1e-2 }],
    ["mlp-16", { hidden: 16, epochs: 300, rate: 0.01, l2: 1e-3 }],
    ["mlp-32", { hidden: 32, epochs: 200, rate: 0.005, l2: 1e-2 }],
    ["mlp-16+max+rank", { hidden: 16, epochs: 150, rate: 0.01, l2: 1e-2 }],
  ] as const).map(([name, o]): Variant => ({
    name,
    columns: name.endsWith("+max+rank") ? "max+rank" : "none",
    fit: (samples) => mlpFit(samples, o),
  })),
];

/** The query's rows with the variant's per-query columns appended. */
function withColumns(rows: readonly number[][], columns: Columns): number[][] {
  if (columns === "none" || rows.length === 0) return rows.map((r) => [...r]);
  const d = rows[0].length;
  const n = rows.length;
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((a, r) => a + r[j], 0) / n);
  const sd = Array.from(
    { length: d },
    (_, j) => Math.sqrt(rows.reduce((a, r) => a + (r[j] - mean[j]) ** 2, 0) / n),
  );
  const max = Array.from({ length: d }, (_, j) => Math.max(...rows.map((r) => r[j])));
  return rows.map((r) => {
    const extra: number[] = [];
    for (let j = 0; j < d; j++) {
      // z-scores reach ±7 among 50 candidates: scaled to the raw features' range so the
      // trainer's fixed step size stays stable.
      if (columns === "zscore") extra.push(sd[j] > 0 ? (r[j] - mean[j]) / sd[j] / 5 : 0);
      // Minus the query's best: a per-query shift, which a linear softmax model cannot see
      // (it adds the same amount to every candidate) but a tree or a network can.
      if (columns === "max+rank") extra.push(r[j] - max[j]);
      if (columns === "rank" || columns === "max+rank") {
        extra.push(1 / (1 + rows.filter((o) => o[j] > r[j]).length));
      }
      if (columns === "pairs") { for (let k = j; k < d; k++) extra.push(r[j] * r[k]); }
    }
    return [...r, ...extra];
  });
}

function isRelevant(s: Sample): number[] {
  return s.ids.map((id) => s.query.relevant.includes(id) ? 1 : 0);
}

function answerable(samples: readonly Sample[]): Sample[] {
  return samples.filter((s) => s.ids.some((id) => s.query.relevant.includes(id)));
}

/** Mulberry32: a seeded generator, so a variant trains the same way every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- gradient-boosted trees ----

interface Split {
  feature: number;
  threshold: number;
  left: Tree;
  right: Tree;
}
type Tree = Split | number;

function treeValue(tree: Tree, row: readonly number[]): number {
  let node = tree;
  while (typeof node !== "number") {
    node = row[node.feature] <= node.threshold ? node.left : node.right;
  }
  return node;
}

const BINS = 64;

// Candidate thresholds per feature: midpoints between quantiles of the training rows.
function thresholds(rows: readonly number[][]): number[][] {
  return rows[0].map((_, j) => {
    const values = rows.map((r) => r[j]).sort((a, b) => a - b);
    const distinct = [...new Set(values)];
    if (distinct.length <= BINS) return distinct.slice(1).map((v, i) => (distinct[i] + v) / 2);
    const cuts = new Set<number>();
    for (let b = 1; b < BINS; b++) {
      const q = values[Math.floor(b * values.length / BINS)];
      const at = distinct.indexOf(q);
      if (at > 0) cuts.add((distinct[at - 1] + q) / 2);
    }
    return [...cuts].sort((a, b) => a - b);
  });
}

interface Grown {
  bins: Uint8Array[];
  cuts: number[][];
  grad: Float64Array;
  hess: Float64Array;
}

function grow(g: Grown, rows: readonly number[], depth: number, o: GbrtOptions): Tree {
  let sumG = 0, sumH = 0;
  for (const i of rows) {
    sumG += g.grad[i];
    sumH += g.hess[i];
  }
  const leaf = o.rate * sumG / (sumH + o.lambda);
  if (depth === 0 || rows.length < 2 * o.minLeaf) return leaf;
  const parent = sumG * sumG / (sumH + o.lambda);
  let best = { gain: 1e-9, feature: -1, bin: -1 };
  g.cuts.forEach((cuts, j) => {
    const histG = new Float64Array(cuts.length + 1);
    const histH = new Float64Array(cuts.length + 1);
    const count = new Int32Array(cuts.length + 1);
    for (const i of rows) {
      const b = g.bins[j][i];
      histG[b] += g.grad[i];
      histH[b] += g.hess[i];
      count[b]++;
    }
    let leftG = 0, leftH = 0, leftN = 0;
    for (let b = 0; b < cuts.length; b++) {
      leftG += histG[b];
      leftH += histH[b];
      leftN += count[b];
      if (leftN < o.minLeaf || rows.length - leftN < o.minLeaf) continue;
      const gain = leftG * leftG / (leftH + o.lambda) +
        (sumG - leftG) ** 2 / (sumH - leftH + o.lambda) - parent;
      if (gain > best.gain) best = { gain, feature: j, bin: b };
    }
  });
  if (best.feature < 0) return leaf;
  const left = rows.filter((i) => g.bins[best.feature][i] <= best.bin);
  const right = rows.filter((i) => g.bins[best.feature][i] > best.bin);
  return {
    feature: best.feature,
    threshold: g.cuts[best.feature][best.bin],
    left: grow(g, left, depth - 1, o),
    right: grow(g, right, depth - 1, o),
  };
}

// Ascent direction and curvature of one query's loss at the current scores.
function queryGradients(
  scores: Float64Array,
  relevant: readonly number[],
  loss: GbrtOptions["loss"],
): { grad: number[]; hess: number[] } {
  const n = relevant.length;
  const grad = new Array(n).fill(0), hess = new Array(n).fill(0);
  const positives = relevant.reduce((a, b) => a + b, 0);
  if (loss === "softmax") {
    const max = Math.max(...scores);
    const exp = [...scores].map((s) => Math.exp(s - max));
    const z = exp.reduce((a, b) => a + b, 0);
    for (let k = 0; k < n; k++) {
      const p = exp[k] / z;
      grad[k] = relevant[k] / positives - p;
      hess[k] = Math.max(p * (1 - p), 1e-6);
    }
    return { grad, hess };
  }
  // LambdaMART: each (relevant, other) pair pulls by how much swapping them changes NDCG.
  const order = [...scores.keys()].sort((a, b) => scores[b] - scores[a] || a - b);
  const position = new Array(n);
  order.forEach((k, r) => position[k] = r);
  let ideal = 0;
  for (let r = 0; r < positives; r++) ideal += 1 / Math.log2(r + 2);
  for (let i = 0; i < n; i++) {
    if (!relevant[i]) continue;
    for (let j = 0; j < n; j++) {
      if (relevant[j]) continue;
      const delta = Math.abs(1 / Math.log2(position[i] + 2) - 1 / Math.log2(position[j] + 2)) /
        ideal;
      const rho = 1 / (1 + Math.exp(scores[i] - scores[j]));
      grad[i] += rho * delta;
      grad[j] -= rho * delta;
      hess[i] += rho * (1 - rho) * delta;
      hess[j] += rho * (1 - rho) * delta;
    }
  }
  return { grad, hess };
}

function gbrtFit(samples: readonly Sample[], o: GbrtOptions): Scorer {
  const queries = answerable(samples);
  const base = o.onLinear ? train(samples, TRAIN_OPTIONS) : null;
  const rows = queries.flatMap((s) => s.features);
  const starts = [0];
  for (const s of queries) starts.push(starts[starts.length - 1] + s.ids.length);
  const cuts = thresholds(rows);
  const bins = cuts.map((c, j) =>
    Uint8Array.from(rows, (r) => {
      let b = 0;
      while (b < c.length && r[j] > c[b]) b++;
      return b;
    })
  );
  const scores = Float64Array.from(rows, (r) => base ? linearScore(r, base) : 0);
  const grown: Grown = {
    bins,
    cuts,
    grad: new Float64Array(rows.length),
    hess: new Float64Array(rows.length),
  };
  const all = [...rows.keys()];
  const trees: Tree[] = [];
  for (let t = 0; t < o.trees; t++) {
    queries.forEach((s, q) => {
      const { grad, hess } = queryGradients(
        scores.subarray(starts[q], starts[q + 1]),
        isRelevant(s),
        o.loss,
      );
      grown.grad.set(grad, starts[q]);
      grown.hess.set(hess, starts[q]);
    });
    const tree = grow(grown, all, o.depth, o);
    trees.push(tree);
    rows.forEach((r, i) => scores[i] += treeValue(tree, r));
  }
  return (candidateRows) =>
    candidateRows.map((r) =>
      (base ? linearScore(r, base) : 0) +
      trees.reduce((sum: number, tree) => sum + treeValue(tree, r), 0)
    );
}

// ---- one-hidden-layer network ----

function mlpFit(samples: readonly Sample[], o: MlpOptions): Scorer {
  const queries = answerable(samples);
  const all = queries.flatMap((s) => s.features);
  const d = all[0].length, h = o.hidden;
  const mean = Array.from({ length: d }, (_, j) => all.reduce((a, r) => a + r[j], 0) / all.length);
  const sd = Array.from(
    { length: d },
    (_, j) => Math.sqrt(all.reduce((a, r) => a + (r[j] - mean[j]) ** 2, 0) / all.length) || 1,
  );
  const standard = (r: readonly number[]) => r.map((v, j) => (v - mean[j]) / sd[j]);
  const inputs = queries.map((s) => s.features.map(standard));
  // Parameters in one array: hidden weights (h×d), hidden biases (h), output (h), skip (d).
  const random = seeded(1);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const p = new Float64Array(h * d + 2 * h + d);
  for (let k = 0; k < h * d; k++) p[k] = gauss() / Math.sqrt(d);
  for (let k = 0; k < h; k++) p[h * d + h + k] = 0.1 * gauss() / Math.sqrt(h);
  const [B1, W2, V] = [h * d, h * d + h, h * d + 2 * h];
  const forward = (x: readonly number[]) => {
    const hidden = new Array(h);
    let out = 0;
    for (let i = 0; i < h; i++) {
      let a = p[B1 + i];
      for (let j = 0; j < d; j++) a += p[i * d + j] * x[j];
      hidden[i] = Math.tanh(a);
      out += p[W2 + i] * hidden[i];
    }
    for (let j = 0; j < d; j++) out += p[V + j] * x[j];
    return { hidden, out };
  };
  const m = new Float64Array(p.length), v = new Float64Array(p.length);
  for (let epoch = 1; epoch <= o.epochs; epoch++) {
    const grad = new Float64Array(p.length);
    inputs.forEach((xs, q) => {
      const relevant = isRelevant(queries[q]);
      const positives = relevant.reduce((a, b) => a + b, 0);
      const passes = xs.map(forward);
      const max = Math.max(...passes.map((f) => f.out));
      const exp = passes.map((f) => Math.exp(f.out - max));
      const z = exp.reduce((a, b) => a + b, 0);
      xs.forEach((x, k) => {
        const g = (exp[k] / z - relevant[k] / positives) / inputs.length;
        for (let i = 0; i < h; i++) {
          const hi = passes[k].hidden[i];
          grad[W2 + i] += g * hi;
          const back = g * p[W2 + i] * (1 - hi * hi);
          grad[B1 + i] += back;
          for (let j = 0; j < d; j++) grad[i * d + j] += back * x[j];
        }
        for (let j = 0; j < d; j++) grad[V + j] += g * x[j];
      });
    });
    for (let k = 0; k < p.length; k++) {
      const g = grad[k] + o.l2 * p[k];
      m[k] = 0.9 * m[k] + 0.1 * g;
      v[k] = 0.999 * v[k] + 0.001 * g * g;
      p[k] -= o.rate * (m[k] / (1 - 0.9 ** epoch)) /
        (Math.sqrt(v[k] / (1 - 0.999 ** epoch)) + 1e-8);
    }
  }
  return (rows) => rows.map((r) => forward(standard(r)).out);
}

// ---- evaluation ----

/** One column of the table: its label, its cell, and each query's recall@5 (for pairing). */
export interface Column {
  /** The column's label. */
  label: string;
  /** `label recall@5/MRR@10`. */
  cell: string;
  /** Each query's recall@5. */
  recall: number[];
}

/** Ranks each sample by `scoresOf` and scores the ranking (recall@5 / MRR@10). */
export function evaluate(
  label: string,
  samples: readonly Sample[],
  scoresOf: (s: Sample) => number[],
): Column {
  const total = emptyScores();
  const recall = samples.map((s) => {
    const scores = scoresOf(s);
    const ranking = s.ids.map((id, i) => ({ id, i, score: scores[i] }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((x) => x.id);
    const before = total.recall5;
    addRanking(total, ranking, { relevant: s.query.relevant });
    return total.recall5 - before;
  });
  const a = averages(total);
  return { label, cell: `${label} ${a.recall5.toFixed(3)}/${a.mrr10.toFixed(3)}`, recall };
}

/**
 * Queries whose recall@5 rose / fell against the same column of a baseline, and a paired
 * bootstrap 95% interval of the mean difference (2,000 seeded resamples of the queries).
 */
export function paired(column: Column, base: Column): string {
  const diff = column.recall.map((r, i) => r - base.recall[i]);
  const random = seeded(3);
  const means = Array.from({ length: 2000 }, () => {
    let sum = 0;
    for (let i = 0; i < diff.length; i++) sum += diff[Math.floor(random() * diff.length)];
    return sum / diff.length;
  }).sort((a, b) => a - b);
  const won = diff.filter((d) => d > 0).length;
  const lost = diff.filter((d) => d < 0).length;
  return `${column.label} +${won}/-${lost} [${means[50].toFixed(3)}, ${means[1949].toFixed(3)}]`;
}

/**
 * A `Fixes:` history's queries as samples over its own records (fixing commits left out),
 * labelled `repo` (one namespace per history, so several can share a storage-free table);
 * `keep` keeps each sample's candidates and terms, `asOf` leaves out the records made after each
 * fix (`collect`'s options); `pool`, when given, receives every record stored (for columns
 * computed over the whole namespace).
 */
export async function gitSamples(
  root: string,
  options: { repo?: string; keep?: boolean; asOf?: boolean; pool?: MemoryRecord[] } = {},
): Promise<Sample[]> {
  const repo = options.repo ?? "git";
  const namespace = `/actor/eval/project/git-fixes-${repo}/`;
  const repository = root;
  const commits = await windowCommits(root, { max: 5000 });
  const { queries, fixing } = fixesQueries(commits, { namespace, repository });
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-rerank-model-" });
  const storage: SqliteStorage = openSqliteStorage(`${dir}/git.db`);
  try {
    for (const c of commits) {
      if (fixing.has(c.sha)) continue;
      const record = commitRecord(c, { namespace, repository });
      await storage.putRecord(record);
      options.pool?.push(record);
    }
    const spaces = await trainSpaces(storage, [namespace]);
    return collect(
      storage,
      queries.map((q, i) => ({ ...q, query_id: `${repo}-${i}`, namespace, repo })),
      { spaces, keep: options.keep, asOf: options.asOf },
    );
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A history's label: its clone's directory name. */
export function historyName(root: string): string {
  return root.replace(/\/+$/, "").split("/").pop() ?? root;
}

// `--external`: every model is trained on other projects' histories only, so both repositories
// of the set are held out, and each history in turn is held out of the others (leave one out).
// Two more columns add one repository of the set to the histories and score the other one. Every
// variant is paired against the shipped weights (`RERANK_MODEL`, trained on ovs) in each column.
function externalTable(
  samples: readonly Sample[],
  histories: ReadonlyMap<string, Sample[]>,
  run: readonly Variant[],
): void {
  const repos = [...new Set([TRAIN_REPO, ...samples.map((s) => s.query.repo)])];
  const short = (repo: string) => repo.split("/").pop();
  const names = [...histories.keys()];
  console.log(
    `external histories: ${
      names.map((n) => `${n} (${histories.get(n)!.length} queries)`).join(", ")
    }; "ext" = all of them pooled; recall@5/MRR@10`,
  );
  // Columns: the held-out queries and the training queries of each.
  const plan = (all: readonly Sample[]) => {
    const of = (repo: string) => all.filter((s) => s.query.repo === repo);
    const ext = all.filter((s) => names.includes(s.query.repo));
    const cells: { label: string; test: Sample[]; train: Sample[] }[] = [];
    for (const repo of repos) {
      cells.push({ label: `ext→${short(repo)}`, test: of(repo), train: ext });
    }
    cells.push({
      label: "ext→ovs+ovn",
      test: all.filter((s) => repos.includes(s.query.repo)),
      train: ext,
    });
    for (const name of names) {
      cells.push({
        label: `ext−${name}→${name}`,
        test: of(name),
        train: ext.filter((s) => s.query.repo !== name),
      });
    }
    for (const repo of repos) {
      for (const other of repos.filter((r) => r !== repo)) {
        cells.push({
          label: `ext+${short(other)}→${short(repo)}`,
          test: of(repo),
          train: [...ext, ...of(other)],
        });
      }
    }
    return cells;
  };
  const raw = [...samples, ...[...histories.values()].flat()];
  const leftOut = (s: Sample) => `ext−${s.query.repo}→${s.query.repo}`;
  // Every history's queries, each ranked by the model that did not see its history: the most
  // queries any column has, so the narrowest interval for "does it help an unseen project".
  const pooled = (all: readonly Sample[], scorerOf: (label: string) => Scorer) =>
    evaluate(
      "ext−h→h pooled",
      all.filter((s) => names.includes(s.query.repo)),
      (s) => scorerOf(leftOut(s))(s.features),
    );
  const shipped: Scorer = (rows) => rows.map((r) => linearScore(r, RERANK_MODEL.weights));
  const shippedRow = [
    ...plan(raw).map((c) => evaluate(c.label, c.test, (s) => shipped(s.features))),
    pooled(raw, () => shipped),
  ];
  console.log(`${"shipped (ovs-trained)".padEnd(26)} ${shippedRow.map((c) => c.cell).join("   ")}`);
  for (const variant of run) {
    const all = raw.map((s) => ({ ...s, features: withColumns(s.features, variant.columns) }));
    const fits = new Map<Sample[], Scorer>();
    const scorers = new Map<string, Scorer>();
    const row = plan(all).map((c) => {
      // The same training set (the pooled histories) fits once for several columns.
      const key = [...fits.keys()].find((k) =>
        k.length === c.train.length && k.every((s, i) => s === c.train[i])
      );
      const scorer = key ? fits.get(key)! : variant.fit(c.train);
      if (!key) fits.set(c.train, scorer);
      scorers.set(c.label, scorer);
      return evaluate(c.label, c.test, (s) => scorer(s.features));
    });
    row.push(pooled(all, (label) => scorers.get(label)!));
    console.log(`${variant.name.padEnd(26)} ${row.map((c) => c.cell).join("   ")}`);
    console.log(
      `${"  recall@5 vs shipped".padEnd(26)} ${
        row.map((c, i) => paired(c, shippedRow[i])).join("   ")
      }`,
    );
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string" },
      git: { type: "string" },
      variants: { type: "string" },
      external: { type: "boolean" },
    },
  });
  const chosen = values.variants?.split(",");
  const unknown = chosen?.filter((name) => !VARIANTS.some((v) => v.name === name)) ?? [];
  if (unknown.length > 0) {
    console.error(
      `unknown variant ${unknown.join(", ")}: choose among ${
        VARIANTS.map((v) => v.name).join(", ")
      }`,
    );
    Deno.exit(2);
  }
  // Checked before the set loads (a minute), so a wrong command fails at once.
  const roots = values.git?.split(",").filter((r) => r !== "") ?? [];
  if (values.external && roots.length < 2) {
    console.error("--external needs at least two clones: --git=/tmp/dpdk,/tmp/xen[,…]");
    Deno.exit(2);
  }
  const set = await loadRealSet(values.data);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-rerank-model-" });
  const storage = openSqliteStorage(`${dir}/set.db`);
  let samples: Sample[];
  try {
    for (const record of set.records) await storage.putRecord(record);
    samples = collect(storage, set.queries, {
      spaces: await trainSpaces(storage, set.repos.keys()),
    });
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
  const run = VARIANTS.filter((v) => v.name === "linear" || (chosen?.includes(v.name) ?? true));
  if (values.external) {
    const histories = new Map<string, Sample[]>();
    for (const root of roots) {
      histories.set(historyName(root), await gitSamples(root, { repo: historyName(root) }));
    }
    externalTable(samples, histories, run);
    Deno.exit(0);
  }
  const git = values.git ? await gitSamples(values.git) : [];
  const repos = [...new Set([TRAIN_REPO, ...samples.map((s) => s.query.repo)])];
  const short = (repo: string) => repo.split("/").pop();
  console.log(
    `variant; trained on each repository with the other held out; two folds within each` +
      (git.length > 0 ? `; ${values.git} (${git.length} Fixes: queries)` : "") +
      " — recall@5/MRR@10",
  );
  // The linear model always runs first: every other variant is paired against it.
  let baseline: Column[] = [];
  for (const variant of run) {
    const prepare = (s: Sample): Sample => ({
      ...s,
      features: withColumns(s.features, variant.columns),
    });
    const all = samples.map(prepare);
    const columns: Column[] = [];
    const gitColumns: Column[] = [];
    for (const repo of repos) {
      const scorer = variant.fit(all.filter((s) => s.query.repo === repo));
      const scores = (s: Sample) => scorer(s.features);
      for (const other of repos.filter((r) => r !== repo)) {
        const heldOut = all.filter((s) => s.query.repo === other);
        columns.push(evaluate(`${short(repo)}→${short(other)}`, heldOut, scores));
      }
      if (git.length > 0) gitColumns.push(evaluate(`${short(repo)}→git`, git.map(prepare), scores));
    }
    for (const repo of repos) {
      // Query i is scored by the model fitted on the other parity.
      const own = all.filter((s) => s.query.repo === repo);
      const scorers = [0, 1].map((fold) => variant.fit(own.filter((_, i) => i % 2 === fold)));
      const scores = (s: Sample) => scorers[1 - own.indexOf(s) % 2](s.features);
      columns.push(evaluate(`${short(repo)} 2-fold`, own, scores));
    }
    if (git.length > 0) {
      // What shipping a model trained on the whole set would do on the unseen history.
      const scorer = variant.fit(all);
      gitColumns.push(evaluate("all→git", git.map(prepare), (s) => scorer(s.features)));
    }
    const row = [...columns, ...gitColumns];
    console.log(`${variant.name.padEnd(26)} ${row.map((c) => c.cell).join("   ")}`);
    if (variant.name === "linear") baseline = row;
    else {
      console.log(
        `${"  recall@5 vs linear".padEnd(26)} ${
          row.map((c, i) => paired(c, baseline[i])).join("   ")
        }`,
      );
    }
  }
}
