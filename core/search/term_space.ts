/**
 * A project's own vocabulary as a vector space, learned from its memory records alone (no
 * download, no network): latent semantic analysis by a randomized truncated SVD.
 *
 * A developer's prompt names a symptom ("crash", "leak", "hang"); the record that answers it
 * names the cause in its author's words ("NULL dereference", "missing free", "lock order"). BM25
 * sees no shared word. But in a project's history the same components, identifiers and
 * symptom/cause words keep appearing together in records (a title and its summary and changed
 * paths), so terms that co-occur across many records end up near each other in the space of
 * the record×term matrix's top singular vectors, and a prompt and a record that share no word
 * can still point the same way.
 *
 * Two layouts of the same matrix:
 *
 * - `merged`: one column per term, a record's title, summary and paths in one bag (classic LSA).
 * - `cross`: a title term and a summary/path term are different columns (cross-language LSI).
 *   The SVD then has to explain a record's summary/path columns from its title columns and vice
 *   versa, which is exactly the translation a prompt (written like a title) needs to reach a
 *   record's body; a prompt is folded in with the title columns, a record with all of its own.
 *
 * Pure functions over typed arrays, deterministic for a seed. Training is O(nnz · dims) per
 * pass (a few seconds for ~4,000 records on one core); embedding a text is a sum of its terms'
 * rows.
 *
 * @module
 */
import { codeParts, isStopWord, stem, textWords } from "./code_text.ts";

/** Training data: the parts of one memory record. */
export interface TermSpaceDoc {
  /** The record's title (what a prompt resembles). */
  title: string;
  /** Its summary (and facts). */
  summary: string;
  /** Its changed paths. */
  files: readonly string[];
}

/** Which columns a text is folded in with. */
export type TermSide = "title" | "body" | "all";

/** A trained term space. */
export interface TermSpace {
  /** Dimensions of a vector. */
  dims: number;
  /** True for the cross layout (title and body terms are separate columns). */
  cross: boolean;
  /** Column → row of {@linkcode TermSpace.vectors}; keys are `t:` / `b:` prefixed when cross. */
  columns: Map<string, number>;
  /** Per column: inverse document frequency, `ln(N / df)`. */
  idf: Float32Array;
  /** Per column, `dims` floats: the term's row of the right singular vectors. */
  vectors: Float32Array;
  /** The singular values, largest first. */
  singular: Float32Array;
}

/** Options of {@linkcode trainTermSpace}. */
export interface TrainTermSpaceOptions {
  /** Dimensions kept (default 128). */
  dims?: number;
  /** Columns seen in fewer records are dropped (default 2: a hapax teaches no association). */
  minDf?: number;
  /** Columns in more than this share of records are dropped (default 0.5: they carry no topic). */
  maxDfShare?: number;
  /** Cross layout (default false). */
  cross?: boolean;
  /** Power iterations of the randomized SVD (default 3; more sharpens the spectrum's tail). */
  powerIterations?: number;
  /** Seed of the random projection (default 1). */
  seed?: number;
}

/**
 * The terms of a text for the term space: its words and identifier parts, lowercased and lightly
 * stemmed, without stop words, single characters or bare numbers (they mean nothing alone).
 */
export function termTokens(text: string): string[] {
  const out: string[] = [];
  const parts = codeParts(text);
  for (const word of [...textWords(text), ...(parts === "" ? [] : parts.split(" "))]) {
    if (word.length < 2 || /^[0-9]+$/.test(word) || isStopWord(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/** A record's bags of terms: title, and summary plus paths. */
function docBags(doc: TermSpaceDoc): { title: string[]; body: string[] } {
  return {
    title: termTokens(doc.title),
    body: [...termTokens(doc.summary), ...termTokens(doc.files.join(" "))],
  };
}

function columnKeys(
  bags: { title: string[]; body: string[] },
  cross: boolean,
  side: TermSide = "all",
): string[] {
  const title = side === "body" ? [] : bags.title;
  const body = side === "title" ? [] : bags.body;
  if (!cross) return [...title, ...body];
  return [...title.map((t) => `t:${t}`), ...body.map((t) => `b:${t}`)];
}

// Seeded generator (mulberry32) and Box–Muller normals: the projection must be reproducible.
function normals(count: number, seed: number): Float64Array {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    out[i] = r * Math.cos(theta);
    if (i + 1 < count) out[i + 1] = r * Math.sin(theta);
  }
  return out;
}

/** Sparse rows (CSR) of the record×column matrix. */
interface Csr {
  rows: number;
  cols: number;
  ptr: Int32Array;
  idx: Int32Array;
  val: Float64Array;
}

/** `X · M` for dense row-major `M` (cols × l) → rows × l (into `out` when given). */
function mulRight(x: Csr, m: Float64Array, l: number, out?: Float64Array): Float64Array {
  if (out) out.fill(0);
  else out = new Float64Array(x.rows * l);
  for (let i = 0; i < x.rows; i++) {
    const o = i * l;
    for (let p = x.ptr[i]; p < x.ptr[i + 1]; p++) {
      const v = x.val[p];
      const r = x.idx[p] * l;
      for (let k = 0; k < l; k++) out[o + k] += v * m[r + k];
    }
  }
  return out;
}

/** `Xᵀ · M` for dense row-major `M` (rows × l) → cols × l (into `out` when given). */
function mulLeftT(x: Csr, m: Float64Array, l: number, out?: Float64Array): Float64Array {
  if (out) out.fill(0);
  else out = new Float64Array(x.cols * l);
  for (let i = 0; i < x.rows; i++) {
    const r = i * l;
    for (let p = x.ptr[i]; p < x.ptr[i + 1]; p++) {
      const v = x.val[p];
      const o = x.idx[p] * l;
      for (let k = 0; k < l; k++) out[o + k] += v * m[r + k];
    }
  }
  return out;
}

/**
 * Orthonormalises the `l` columns of row-major `m` (n × l) in place by Cholesky QR: row-wise
 * sweeps instead of Gram–Schmidt's column-strided ones. Two passes (the second repairs the
 * first's rounding) give an orthonormal basis; one is enough between power iterations, which
 * only need the columns kept apart. A column that depends on the previous ones (a matrix of
 * rank < l) becomes zero rather than noise.
 */
function orthonormalize(m: Float64Array, n: number, l: number, passes = 2): void {
  for (let pass = 0; pass < passes; pass++) {
    const g = new Float64Array(l * l);
    for (let r = 0; r < n; r++) {
      const o = r * l;
      for (let i = 0; i < l; i++) {
        const v = m[o + i];
        if (v === 0) continue;
        const gi = i * l;
        for (let j = i; j < l; j++) g[gi + j] += v * m[o + j];
      }
    }
    // Upper Cholesky factor R (Gᵀ = G, only the upper triangle is filled).
    const rr = new Float64Array(l * l);
    const scale = Math.max(1e-300, ...Array.from({ length: l }, (_, i) => g[i * l + i]));
    for (let j = 0; j < l; j++) {
      let d = g[j * l + j];
      for (let k = 0; k < j; k++) d -= rr[k * l + j] ** 2;
      if (d <= 1e-12 * scale) continue; // dependent column: its row of R stays zero
      const rjj = Math.sqrt(d);
      rr[j * l + j] = rjj;
      for (let i = j + 1; i < l; i++) {
        let v = g[j * l + i];
        for (let k = 0; k < j; k++) v -= rr[k * l + j] * rr[k * l + i];
        rr[j * l + i] = v / rjj;
      }
    }
    // Each row x of the result solves x·R = row (forward substitution).
    for (let r = 0; r < n; r++) {
      const o = r * l;
      for (let j = 0; j < l; j++) {
        const rjj = rr[j * l + j];
        if (rjj === 0) {
          m[o + j] = 0;
          continue;
        }
        let v = m[o + j];
        for (let k = 0; k < j; k++) v -= m[o + k] * rr[k * l + j];
        m[o + j] = v / rjj;
      }
    }
  }
}

/** Eigen-decomposition of a symmetric l × l matrix by cyclic Jacobi: values and column vectors. */
function symmetricEigen(
  a: Float64Array,
  l: number,
): { values: Float64Array; vectors: Float64Array } {
  const v = new Float64Array(l * l);
  for (let i = 0; i < l; i++) v[i * l + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < l; p++) for (let q = p + 1; q < l; q++) off += a[p * l + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < l; p++) {
      for (let q = p + 1; q < l; q++) {
        const apq = a[p * l + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * l + q] - a[p * l + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < l; k++) {
          const akp = a[k * l + p], akq = a[k * l + q];
          a[k * l + p] = c * akp - s * akq;
          a[k * l + q] = s * akp + c * akq;
        }
        for (let k = 0; k < l; k++) {
          const apk = a[p * l + k], aqk = a[q * l + k];
          a[p * l + k] = c * apk - s * aqk;
          a[q * l + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < l; k++) {
          const vkp = v[k * l + p], vkq = v[k * l + q];
          v[k * l + p] = c * vkp - s * vkq;
          v[k * l + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(l);
  for (let i = 0; i < l; i++) values[i] = a[i * l + i];
  return { values, vectors: v };
}

/**
 * The top singular values and right singular vectors (one row of `dims` per column) of a sparse
 * matrix by a randomized SVD (Halko, Martinsson & Tropp 2011).
 */
function truncatedSvd(
  x: Csr,
  options: { dims?: number; powerIterations?: number; seed?: number },
): { dims: number; vectors: Float32Array; singular: Float32Array } {
  const dims = Math.max(1, Math.min(options.dims ?? 128, x.rows, x.cols));
  // Oversampling: the randomized range finder is accurate for the top `dims` with a few spare.
  const l = Math.min(dims + 10, x.rows, x.cols);
  // Power iterations sharpen the range towards the top singular vectors; float64 keeps the
  // smaller directions resolvable, so only the record-side basis is re-orthonormalised.
  // The two dense buffers are reused across iterations: at 100k records y alone is ~100 MB.
  const y = mulRight(x, normals(x.cols * l, options.seed ?? 1), l);
  const bt = new Float64Array(x.cols * l);
  orthonormalize(y, x.rows, l, 1);
  for (let it = 0; it < (options.powerIterations ?? 3); it++) {
    mulRight(x, mulLeftT(x, y, l, bt), l, y);
    orthonormalize(y, x.rows, l, 1);
  }
  orthonormalize(y, x.rows, l);
  // B = Qᵀ X, kept transposed (cols × l); B Bᵀ = (Bᵀ)ᵀ Bᵀ is small (l × l).
  mulLeftT(x, y, l, bt);
  const gram = new Float64Array(l * l);
  for (let c = 0; c < x.cols; c++) {
    const o = c * l;
    for (let i = 0; i < l; i++) {
      const bi = bt[o + i];
      if (bi === 0) continue;
      for (let j = 0; j < l; j++) gram[i * l + j] += bi * bt[o + j];
    }
  }
  const { values, vectors: u } = symmetricEigen(gram, l);
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]).slice(0, dims);
  const singular = Float32Array.from(order.map((k) => Math.sqrt(Math.max(0, values[k]))));
  // Bᵀ u_k = σ_k v_k, so v_k = Bᵀ u_k / σ_k (a zero σ is a dimension the data never fills).
  const vectors = new Float32Array(x.cols * dims);
  for (let c = 0; c < x.cols; c++) {
    const o = c * l;
    for (let d = 0; d < dims; d++) {
      const k = order[d];
      let s = 0;
      for (let i = 0; i < l; i++) s += bt[o + i] * u[i * l + k];
      vectors[c * dims + d] = singular[d] > 1e-9 ? s / singular[d] : 0;
    }
  }
  return { dims, vectors, singular };
}

/** Builds a term space from documents added one at a time ({@linkcode termSpaceBuilder}). */
export interface TermSpaceBuilder {
  /** Adds a document (its text is tokenized now and not kept). */
  add(doc: TermSpaceDoc): void;
  /** Trains the space over every document added (once: the documents are let go). */
  build(): TermSpace;
}

/**
 * {@linkcode trainTermSpace} for documents that arrive in pages: each is reduced to its term ids
 * and counts (a few bytes per term) as it is added, so a namespace of 100k records is never held
 * as text, nor as one string per token.
 */
export function termSpaceBuilder(options: TrainTermSpaceOptions = {}): TermSpaceBuilder {
  const cross = options.cross ?? false;
  const vocabulary = new Map<string, number>();
  const names: string[] = [];
  const df: number[] = [];
  // Per document, its distinct terms (first-occurrence order) and their counts.
  let ids = new Int32Array(1 << 16);
  let counts = new Int32Array(1 << 16);
  let used = 0;
  const starts: number[] = [0];
  return {
    add(doc) {
      const tf = new Map<number, number>();
      for (const key of columnKeys(docBags(doc), cross)) {
        let id = vocabulary.get(key);
        if (id === undefined) {
          id = names.length;
          vocabulary.set(key, id);
          names.push(key);
          df.push(0);
        }
        tf.set(id, (tf.get(id) ?? 0) + 1);
      }
      if (used + tf.size > ids.length) {
        const size = Math.max(ids.length * 2, used + tf.size);
        const grownIds = new Int32Array(size), grownCounts = new Int32Array(size);
        grownIds.set(ids.subarray(0, used));
        grownCounts.set(counts.subarray(0, used));
        ids = grownIds;
        counts = grownCounts;
      }
      for (const [id, n] of tf) {
        ids[used] = id;
        counts[used++] = n;
        df[id]++;
      }
      starts.push(used);
    },
    build() {
      const rows = starts.length - 1;
      const minDf = options.minDf ?? 2;
      const maxDfShare = options.maxDfShare ?? 0.5;
      const kept = names.map((_, id) => id)
        .filter((id) => df[id] >= minDf && df[id] <= maxDfShare * rows)
        .sort((a, b) => (names[a] < names[b] ? -1 : 1));
      const column = new Int32Array(names.length).fill(-1);
      kept.forEach((id, c) => column[id] = c);
      const columns = new Map(kept.map((id, c) => [names[id], c]));
      const idf = Float32Array.from(kept.map((id) => Math.log(rows / df[id])));
      let nnz = 0;
      for (let p = 0; p < used; p++) if (column[ids[p]] >= 0) nnz++;
      const ptr = new Int32Array(rows + 1);
      const idx = new Int32Array(nnz);
      const val = new Float64Array(nnz);
      let at = 0;
      for (let i = 0; i < rows; i++) {
        const from = at;
        let length = 0;
        for (let p = starts[i]; p < starts[i + 1]; p++) {
          const c = column[ids[p]];
          if (c < 0) continue;
          const v = (1 + Math.log(counts[p])) * idf[c];
          idx[at] = c;
          val[at++] = v;
          length += v * v;
        }
        length = Math.sqrt(length) || 1;
        for (let p = from; p < at; p++) val[p] /= length;
        ptr[i + 1] = at;
      }
      // The per-document ids are in the matrix now; let them go before the SVD's large buffers.
      ids = counts = new Int32Array(0);
      used = 0;
      starts.length = 1;
      const x: Csr = { rows, cols: columns.size, ptr, idx, val };
      const { dims, vectors, singular } = truncatedSvd(x, options);
      return { dims, cross, columns, idf, vectors, singular };
    },
  };
}

/**
 * Learns a term space from a namespace's records: a TF-IDF record×term matrix (log term
 * frequency, rows of unit length so a long record does not dominate), then its top `dims`
 * singular triplets by a randomized SVD (Halko, Martinsson & Tropp 2011). A term's vector is its
 * row of the right singular vectors; {@linkcode embedTerms} folds a text in.
 */
export function trainTermSpace(
  docs: readonly TermSpaceDoc[],
  options: TrainTermSpaceOptions = {},
): TermSpace {
  const builder = termSpaceBuilder(options);
  for (const doc of docs) builder.add(doc);
  return builder.build();
}

/**
 * A text's vector: its TF-IDF weights projected on the right singular vectors (unknown terms add
 * nothing), each dimension then scaled by `σ^power`, or `null` when none of its terms is known.
 * Power 0 (the default) is the classic fold-in (a training record gets its row of `U·Σ`); -1
 * weighs every latent topic alike. `side` picks the columns in the cross layout: a prompt reads
 * like a title (`title`), a record is all of its parts (`all`, the default). Terms in `exclude`
 * (as {@linkcode termTokens} spells them) are left out: a prompt and a record without the words
 * they share are what is left to compare when looking for a paraphrase.
 */
export function embedTerms(
  space: TermSpace,
  doc: TermSpaceDoc,
  options: { side?: TermSide; power?: number; exclude?: ReadonlySet<string> } = {},
): Float32Array | null {
  const keys = columnKeys(docBags(doc), space.cross, options.side ?? "all");
  const tf = new Map<number, number>();
  for (const key of keys) {
    if (options.exclude?.has(key.replace(/^[tb]:/, ""))) continue;
    const c = space.columns.get(key);
    if (c !== undefined) tf.set(c, (tf.get(c) ?? 0) + 1);
  }
  if (tf.size === 0) return null;
  const out = new Float32Array(space.dims);
  const dims = space.dims;
  for (const [c, n] of tf) {
    const w = (1 + Math.log(n)) * space.idf[c];
    const o = c * dims;
    for (let d = 0; d < dims; d++) out[d] += w * space.vectors[o + d];
  }
  const power = options.power ?? 0;
  if (power !== 0) {
    for (let d = 0; d < dims; d++) {
      out[d] = space.singular[d] > 1e-9 ? out[d] * space.singular[d] ** power : 0;
    }
  }
  return out;
}

/** Cosine of two term-space vectors; 0 when either is missing or has no direction. */
export function termCosine(a: Float32Array | null, b: Float32Array | null): number {
  if (a === null || b === null) return 0;
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  const n = Math.sqrt(aa * bb);
  return n > 0 ? ab / n : 0;
}

/**
 * The reranker column of a term space: the cosine of the prompt (folded in as a title) with each
 * candidate's stored vector, divided by the best candidate's, so the column means "how close,
 * compared with the closest candidate" whatever the namespace's typical cosines. A candidate
 * without a vector (a record newer than the space) scores 0, as an unrelated one does.
 */
export function termSpaceColumn(
  query: string,
  options: {
    space: TermSpace;
    records: readonly (Float32Array | null)[];
    power?: number;
    relative?: boolean;
  },
): number[] {
  const q = embedTerms(options.space, { title: query, summary: "", files: [] }, {
    side: options.space.cross ? "title" : "all",
    power: options.power,
  });
  const values = options.records.map((v) => Math.max(0, termCosine(q, v)));
  const max = Math.max(0, ...values);
  return (options.relative ?? true) && max > 0 ? values.map((v) => v / max) : values;
}
