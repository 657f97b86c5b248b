/**
 * Retrieval on a history nobody tuned on: import a real repository with `kiro-learn import git`,
 * build queries from its own `Fixes: <sha>` trailers the way `../shared/quality/README.md`
 * describes (the fixing commit's subject asks for the commit that introduced the bug; fixing
 * commits are left out of the pool), and score the injected path and the lexical path.
 *
 * ```sh
 * deno run -A collector/tooling/quality/git_fixes_eval.ts <repo dir> [--max=5000] [--backfill]
 * ```
 *
 * `--count` only counts: the window's commits, its fixing commits, the queries and the pool, so a
 * history can be judged as a training or test set without importing it.
 *
 * `--backfill` runs the collector with the default embedder (`use-lite`) and also reports how
 * long the background backfill takes to embed the imported records, and the collector's peak
 * RSS (VmHWM) over import and backfill.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { memoryPath } from "@kiro-learn/core/api";
import { newEventId } from "@kiro-learn/core/ids";
import { resolveProject } from "@kiro-learn/core/project";
import { type Commit, commitRecord, gitLogArgs, importGit, parseGitLog } from "../../cli/mod.ts";
import { postJson, processMemoryKib, startTestDaemon } from "../testing/mod.ts";
import { waitForTermSpaces } from "./real_bench.ts";
import { addRanking, averages, emptyScores } from "./real_set.ts";

async function gitText(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, stdout: "piped", stderr: "inherit" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * The newest `max` non-merge commits of a repository, with their bodies (for the trailers), read
 * exactly as `kiro-learn import git` reads them.
 */
export async function windowCommits(root: string, options: { max: number }): Promise<Commit[]> {
  const log = new Deno.Command("git", { args: gitLogArgs(root, options), stdout: "piped" })
    .spawn();
  const commits: Commit[] = [];
  for await (const c of parseGitLog(log.stdout.pipeThrough(new TextDecoderStream()))) {
    commits.push(c);
  }
  const status = await log.status;
  if (!status.success) throw new Error(`git log in ${root} failed: is it a git repository?`);
  return commits;
}

/** A prompt (a fixing commit's subject) and the record ids of the commits it fixes. */
export interface FixesQuery {
  /** The fixing commit's subject. */
  query: string;
  /** Record ids of the commits its `Fixes:` trailers name, inside the window. */
  relevant: string[];
  /** The fixing commit's date: when the developer asked (records made later did not exist). */
  fixed_at: string;
}

/**
 * The window's `Fixes: <sha>` queries (reverts and repeated subjects left out) and every fixing
 * commit's sha, which the pool must leave out: the fix does not exist yet when the developer asks.
 */
export function fixesQueries(
  commits: readonly Commit[],
  options: { namespace: string; repository: string },
): { queries: FixesQuery[]; fixing: Set<string> } {
  const fixing = new Set<string>();
  const queries: FixesQuery[] = [];
  const seenQueries = new Set<string>();
  for (const c of commits) {
    const targets = [...c.body.matchAll(/^Fixes:\s*([0-9a-f]{7,40})\b/gim)].map((m) => m[1]);
    if (targets.length === 0) continue;
    fixing.add(c.sha);
    if (/^revert/i.test(c.subject) || seenQueries.has(c.subject)) continue;
    const relevant = targets
      .map((prefix) => commits.find((t) => t.sha.startsWith(prefix)))
      .filter((t) => t !== undefined && t.sha !== c.sha)
      .map((t) => commitRecord(t!, options).record_id);
    if (relevant.length === 0) continue;
    seenQueries.add(c.subject);
    queries.push({ query: c.subject, relevant, fixed_at: c.date });
  }
  return { queries, fixing };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { max: { type: "string" }, backfill: { type: "boolean" }, count: { type: "boolean" } },
    allowPositionals: true,
  });
  const dir = positionals[0];
  if (!dir) throw new Error("usage: git_fixes_eval.ts <repo dir> [--max=5000] [--count]");
  const max = Number(values.max ?? 5000);
  const root = await gitText(["-C", dir, "rev-parse", "--show-toplevel"]);
  const repository = (await gitText(["-C", root, "rev-list", "--max-parents=0", "HEAD"]))
    .split("\n").sort().join(",");
  const namespace = resolveProject(root).namespace;

  const commits = await windowCommits(root, { max });
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  const { queries, fixing } = fixesQueries(commits, { namespace, repository });
  if (values.count) {
    console.log(
      `${root}: ${commits.length} commits (oldest ${commits.at(-1)?.date ?? "none"}), ` +
        `${fixing.size} with a Fixes: trailer, ${queries.length} queries, ` +
        `pool ${commits.length - fixing.size} records`,
    );
    Deno.exit(0);
  }

  await using daemon = await startTestDaemon({
    settings: {
      retrieval: { limit: 10, tokenBudget: 20_000 },
      extraction: { strategy: "heuristic", idleMs: 300_000, sizeThresholdBytes: 16_777_216 },
      ...(values.backfill ? { embedding: { backend: "use-lite" } } : {}),
    },
  });
  const report = await importGit(daemon.settings, root, { max, progress: () => {} });
  console.log(
    `imported ${report.added} commits of ${root} in ${report.seconds} s ` +
      `(${Math.round(report.added / Math.max(report.seconds, 0.1))}/s)`,
  );
  if (values.backfill) {
    const started = performance.now();
    let missing = Number.POSITIVE_INFINITY;
    while (missing > 0) {
      await new Promise((r) => setTimeout(r, 2000));
      const stats = await (await daemon.fetch(`/v1/stats?namespace=${namespace}`)).json() as {
        embeddings_missing?: number;
      };
      missing = stats.embeddings_missing ?? 0;
    }
    const seconds = (performance.now() - started) / 1000;
    const peak = processMemoryKib(daemon.pid(), "VmHWM") / 1024;
    console.log(
      `backfill: ${report.added} records embedded (use-lite) in ${seconds.toFixed(0)} s ` +
        `(${(report.added / seconds).toFixed(1)}/s); collector peak RSS ${peak.toFixed(0)} MiB`,
    );
  }
  // Fixing commits are not in the pool: the fix does not exist yet when the developer asks.
  let removed = 0;
  for (const sha of fixing) {
    const target = queries.length > 0 && bySha.get(sha);
    if (!target) continue;
    const id = commitRecord(target, { namespace, repository }).record_id;
    const res = await daemon.fetch(memoryPath(id), { method: "DELETE" });
    await res.body?.cancel();
    if (res.status === 200) removed++;
  }
  // Forgetting records drops the namespace's term space: wait for the one trained without them,
  // so the queries are ranked as the collector ranks once it is idle.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await waitForTermSpaces(daemon, [namespace]);
  const inject = emptyScores();
  const lexical = emptyScores();
  for (const q of queries) {
    const res = await postJson(daemon, "/v1/events?retrieve=true", {
      event_id: newEventId(),
      session_id: "fixes-eval",
      actor_id: "eval",
      namespace,
      schema_version: 1,
      kind: "prompt",
      body: { type: "text", content: q.query },
      valid_time: new Date().toISOString(),
      source: { surface: "claude-code", version: "eval", client_id: "eval", project_path: root },
    });
    const body = await res.json() as { retrieval?: { records: string[] } };
    addRanking(inject, body.retrieval?.records ?? [], { relevant: q.relevant });
    const params = new URLSearchParams({ namespace, query: q.query, limit: "10", mode: "lexical" });
    const hits = await (await daemon.fetch(`/v1/memories/search?${params}`)).json() as {
      record_id: string;
    }[];
    addRanking(lexical, hits.map((h) => h.record_id), { relevant: q.relevant });
  }
  const f = (s: ReturnType<typeof averages>) => `${s.recall5.toFixed(3)} / ${s.mrr10.toFixed(3)}`;
  console.log(
    `${root}: ${queries.length} Fixes: queries over ${report.added - removed} records ` +
      `(${removed} fixing commits left out); recall@5 / MRR@10`,
  );
  console.log(`  injected (prompt hook): ${f(averages(inject))}`);
  console.log(`  mode=lexical:           ${f(averages(lexical))}`);
}
