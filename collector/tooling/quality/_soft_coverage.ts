/**
 * An experiment's variant that lost (`semantic_experiment.ts`): a prompt's soft coverage by a
 * record in the namespace's term space. Kept beside the experiment so it can be measured again;
 * the collector does not ship it.
 *
 * @module
 */
import { type TermSpace, type TermSpaceDoc, termTokens } from "@kiro-learn/core/search";

/**
 * Soft coverage of a prompt by a record: each prompt term counts as much as its closest term in
 * the record (cosine of the two terms' vectors, scaled by `σ^power`, negative as 0), IDF-weighted
 * and averaged over the prompt's known terms. A word the record has counts 1 (or is left out with
 * `skipExact`: the lexical features already see shared words), "crash" against a record that
 * says "segfault" counts their similarity: paraphrase credited term by term, where averaging
 * whole texts into one vector blurs it.
 */
export function softCoverage(
  space: TermSpace,
  query: string,
  options: { doc: TermSpaceDoc; power?: number; skipExact?: boolean },
): number {
  const power = options.power ?? 0.5;
  const dims = space.dims;
  const unit = (c: number) => {
    const out = new Float64Array(dims);
    let n = 0;
    for (let d = 0; d < dims; d++) {
      out[d] = space.vectors[c * dims + d] * space.singular[d] ** power;
      n += out[d] * out[d];
    }
    n = Math.sqrt(n) || 1;
    for (let d = 0; d < dims; d++) out[d] /= n;
    return out;
  };
  const docTerms = new Set<string>();
  const { doc } = options;
  for (const text of [doc.title, doc.summary, doc.files.join(" ")]) {
    for (const t of termTokens(text)) docTerms.add(t);
  }
  const docVectors: Float64Array[] = [];
  for (const t of docTerms) {
    const c = space.columns.get(t);
    if (c !== undefined) docVectors.push(unit(c));
  }
  let total = 0, weight = 0;
  for (const t of new Set(termTokens(query))) {
    const c = space.columns.get(t);
    if (c === undefined) continue;
    const idf = space.idf[c];
    weight += idf;
    if (docTerms.has(t)) {
      if (!options.skipExact) total += idf;
      continue;
    }
    const q = unit(c);
    let best = 0;
    for (const v of docVectors) {
      let s = 0;
      for (let d = 0; d < dims; d++) s += q[d] * v[d];
      if (s > best) best = s;
    }
    total += idf * best;
  }
  return weight > 0 ? total / weight : 0;
}
