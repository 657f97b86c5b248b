/**
 * Scratch: in-process as-of replay of the real set (the protocol of score_api.py --as-of), to
 * try candidate sources and features fast. Not shipped.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  type LexicalCandidate,
  RERANK_MODEL,
  rerankFeatures,
  type TermSpace,
  trainRecordTermSpace,
  type WeightedTerm,
} from "@kiro-learn/core/search";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { termSpaceDocPages, trainingDue } from "../../daemon/term_spaces/mod.ts";
import { loadRealSet, type RealQuery, TRAIN_REPO } from "./real_set.ts";
import { printTable, rank, type Sample, table, train, TRAIN_OPTIONS } from "./train_rerank.ts";

interface Raw {
  query: RealQuery;
  candidates: LexicalCandidate[];
  terms: WeightedTerm[];
  space: TermSpace | null;
  newest: number;
  recentFiles: Map<string, number>;
}

const DAY = 86_400_000;

function extra(raw: Raw, cands: LexicalCandidate[], which: string[]): number[][] {
  const times = cands.map((c) => Date.parse(c.record.created_at));
  const order = times.map((t, i) => ({ t, i })).sort((a, b) => b.t - a.t);
  const ageRank = new Array(cands.length).fill(0);
  order.forEach(({ i }, k) => ageRank[i] = 1 / (k + 1));
  return cands.map((_, i) => {
    const row: number[] = [];
    const days = Math.max(0, (raw.newest - times[i]) / DAY);
    for (const w of which) {
      if (w === "age") row.push(Math.log1p(days) / 10);
      if (w === "agerank") row.push(ageRank[i]);
      if (w === "recent30") row.push(days <= 30 ? 1 : 0);
      if (w === "recent365") row.push(days <= 365 ? 1 : 0);
      if (w === "age2") row.push((Math.log1p(days) / 10) ** 2);
      if (w === "rfiles") {
        const f = cands[i].record.files_touched;
        const n = f.filter((p) => (raw.recentFiles.get(p) ?? 0) > 0).length;
        row.push(f.length > 0 ? n / f.length : 0);
      }
      if (w === "rfilesany") {
        row.push(
          cands[i].record.files_touched.some((p) => (raw.recentFiles.get(p) ?? 0) > 0) ? 1 : 0,
        );
      }
    }
    return row;
  });
}

function samples(raws: Raw[], depth: number, which: string[]): Sample[] {
  return raws.map((raw) => {
    const cands = raw.candidates.slice(0, depth);
    const base = rerankFeatures(raw.query.query, cands, { terms: raw.terms, space: raw.space });
    const ex = extra(raw, cands, which);
    return {
      query: raw.query,
      ids: cands.map((c) => c.record.record_id),
      features: base.map((f, i) => [...f, ...ex[i]]),
    };
  });
}

function candRecall(raws: Raw[], depth: number, repo?: string): string {
  const rs = raws.filter((r) => !repo || r.query.repo === repo);
  const hit =
    rs.filter((r) =>
      r.candidates.slice(0, depth).some((c) => r.query.relevant.includes(c.record.record_id))
    ).length;
  return (hit / rs.length).toFixed(3);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { max: { type: "string" }, depth: { type: "string" }, cache: { type: "string" } },
  });
  const set = await loadRealSet();
  const maxDepth = Number(values.depth ?? 200);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-asof-" });
  const storage = openSqliteStorage(`${dir}/x.db`);
  const raws: Raw[] = [];
  const started = performance.now();
  try {
    const namespaces = [...set.repos.entries()].sort((a, b) => a[1].localeCompare(b[1]));
    for (const [ns] of namespaces) {
      const recs = set.records.filter((r) => r.namespace === ns)
        .sort((a, b) => a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0);
      let qs = set.queries.filter((q) => q.namespace === ns)
        .sort((a, b) =>
          a.fixed_at! < b.fixed_at!
            ? -1
            : a.fixed_at! > b.fixed_at!
            ? 1
            : a.query_id < b.query_id
            ? -1
            : 1
        );
      if (values.max) {
        const step = qs.length / Number(values.max);
        qs = Array.from({ length: Number(values.max) }, (_, i) => qs[Math.floor(i * step)]);
      }
      let i = 0, trained = 0, newest = 0;
      const recent: string[][] = [];
      const recentFiles = new Map<string, number>();
      let space: TermSpace | null = null;
      for (const q of qs) {
        while (i < recs.length && recs[i].created_at <= q.fixed_at!) {
          await storage.putRecord(recs[i]);
          newest = Math.max(newest, Date.parse(recs[i].created_at));
          const files = [...new Set(recs[i].files_touched)];
          recent.push(files);
          for (const f of files) recentFiles.set(f, (recentFiles.get(f) ?? 0) + 1);
          if (recent.length > 200) {
            for (const f of recent.shift()!) recentFiles.set(f, recentFiles.get(f)! - 1);
          }
          i++;
        }
        if (trainingDue(i, { trained, minRecords: 500 })) {
          const docs = [];
          for await (const page of termSpaceDocPages(storage, ns)) docs.push(...page);
          space = trainRecordTermSpace(docs);
          trained = i;
        }
        const found = storage.searchCandidatesSync(ns, q.query, { limit: maxDepth });
        raws.push({
          query: q,
          candidates: found.candidates,
          terms: found.terms,
          space,
          newest,
          recentFiles: new Map([...recentFiles].filter(([, n]) => n > 0)),
        });
      }
      console.log(
        `${ns}: ${qs.length} queries, ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
  const OVN = "ovn-org/ovn";
  for (const d of [50, 100, 200]) {
    console.log(
      `candidate recall @${d}: all ${candRecall(raws, d)} ovs ${
        candRecall(raws, d, TRAIN_REPO)
      } ovn ${candRecall(raws, d, OVN)}`,
    );
  }
  const base50 = samples(raws, 50, []);
  printTable("lexical (BM25 order)", table(base50, (s) => s.ids));
  printTable("shipped weights d50", table(base50, (s) => rank(s, RERANK_MODEL.weights).ids));
  const configs: [number, string[]][] = [
    [50, []],
    [50, ["age", "agerank"]],
    [50, ["age", "agerank", "age2"]],
    [50, ["age", "agerank", "rfiles"]],
    [50, ["age", "agerank", "rfilesany"]],
    [100, ["age", "agerank"]],
    [100, ["age", "agerank", "age2", "rfiles"]],
  ];
  for (const [d, which] of configs) {
    const s = samples(raws, d, which);
    const w = train(s.filter((x) => x.query.repo === TRAIN_REPO), TRAIN_OPTIONS);
    printTable(`d${d} ${which.join("+") || "retrained"}`, table(s, (x) => rank(x, w).ids));
    // reverse: train on ovn, score ovs
    const wr = train(s.filter((x) => x.query.repo === OVN), TRAIN_OPTIONS);
    printTable(`  reverse (train ovn)`, table(s, (x) => rank(x, wr).ids));
  }
}
