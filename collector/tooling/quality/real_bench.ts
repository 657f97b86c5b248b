/**
 * Retrieval quality on real data, measured through the real collector as of each fix:
 * docs/retrieval.md's table.
 *
 * ```sh
 * deno task quality                      # the whole development split (≈ 10 min on a quiet machine)
 * deno task quality --max-queries=300    # a fixed subset (--quick: 200)
 * deno task quality --data=DIR           # another copy of the set
 * ```
 *
 * It starts a collector (its own data dir and port, embeddings off) and replays the set's history
 * the way the set's scorer does with `--as-of` (`asOfSteps`): per repository, in time order, it
 * saves through `POST /v1/memories` the records made by the next prompt's fix, waits for the term
 * space the collector's retrain rule says is due (`/v1/stats`), then asks the prompt the way the
 * prompt hook does (`POST /v1/events?retrieve=true`, reading the injected `retrieval.records`),
 * the way a debugging user would (`GET /v1/memories/search?mode=lexical`), and for the pool the
 * reranker orders (`mode=candidates`: the candidate recall, the share of prompts whose answer is
 * in it). No prompt meets a record made after its fix. Then, with the whole history saved, it
 * sends every no-answer prompt into every namespace and counts what gets injected. Prints the
 * trained-on and held-out repositories apart, latency, and writes `.bench/quality-real.json`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { newEventId } from "@kiro-learn/core/ids";
import type { Event } from "@kiro-learn/core/schemas";
import { formatMs, summarize } from "@kiro-learn/core/testing";
import { postJson, startTestDaemon, type TestDaemon } from "../testing/mod.ts";
import { TERM_SPACE_MIN_RECORDS, trainingDue } from "../../daemon/term_spaces/mod.ts";
import {
  addRanking,
  asOfSteps,
  averages,
  candidateRecall,
  emptyScores,
  loadNoAnswerPrompts,
  loadRealSet,
  type RealQuery,
  type Scores,
  TRAIN_REPO,
} from "./real_set.ts";

const OUT = fileURLToPath(new URL("../../../.bench/quality-real.json", import.meta.url));

function promptEvent(namespace: string, text: string): Event {
  return {
    event_id: newEventId(),
    session_id: "quality-bench",
    actor_id: "eval",
    namespace,
    schema_version: 1,
    kind: "prompt",
    body: { type: "text", content: text },
    valid_time: new Date().toISOString(),
    source: {
      surface: "claude-code",
      version: "bench",
      client_id: "bench",
      project_path: "/bench",
    },
  };
}

/** Runs `work` over `items` with `concurrency` workers, in order of start. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

async function injected(daemon: TestDaemon, namespace: string, text: string) {
  const started = performance.now();
  const res = await postJson(daemon, "/v1/events?retrieve=true", promptEvent(namespace, text));
  if (res.status !== 200) throw new Error(`POST /v1/events answered ${res.status}`);
  const body = await res.json() as {
    retrieval?: { records: string[]; context: string; latency_ms: number };
  };
  return {
    ids: body.retrieval?.records ?? [],
    context: body.retrieval?.context ?? "",
    serverMs: body.retrieval?.latency_ms ?? 0,
    clientMs: performance.now() - started,
  };
}

async function lexical(daemon: TestDaemon, query: RealQuery): Promise<string[]> {
  const params = new URLSearchParams({
    namespace: query.namespace,
    query: query.query,
    limit: "10",
    mode: "lexical",
  });
  const res = await daemon.fetch(`/v1/memories/search?${params}`);
  if (res.status !== 200) throw new Error(`search answered ${res.status}`);
  return (await res.json() as { record_id: string }[]).map((r) => r.record_id);
}

/** What `/v1/stats` says about the collector's term spaces. */
interface TermSpacesStatus {
  pending: number;
  training: string | null;
  namespaces: { namespace: string; records: number; terms: number; last_error: string | null }[];
}

/**
 * Waits until the collector has trained a term space for every namespace and has nothing left
 * to train (they are trained in the background as records arrive; a query asked before would
 * measure the ranking without them), printing progress. Throws after `timeoutMs`.
 */
export async function waitForTermSpaces(
  daemon: TestDaemon,
  namespaces: readonly string[],
  timeoutMs = 600_000,
): Promise<TermSpacesStatus> {
  const started = performance.now();
  let lastLine = 0;
  while (true) {
    const res = await daemon.fetch("/v1/stats");
    const status = (await res.json() as { term_spaces: TermSpacesStatus }).term_spaces;
    const ready = namespaces.filter((ns) =>
      (status.namespaces.find((n) => n.namespace === ns)?.records ?? 0) > 0
    );
    const elapsed = (performance.now() - started) / 1000;
    if (ready.length === namespaces.length && status.pending === 0) {
      console.log(
        `term spaces ready after ${elapsed.toFixed(1)} s: ` +
          status.namespaces.map((n) => `${n.records} records, ${n.terms} terms`).join("; "),
      );
      return status;
    }
    if (elapsed * 1000 > timeoutMs) {
      throw new Error(
        `term spaces not ready after ${timeoutMs / 1000} s: ${JSON.stringify(status)}`,
      );
    }
    if (elapsed - lastLine >= 5) {
      lastLine = elapsed;
      console.log(
        `waiting for term spaces: ${ready.length} of ${namespaces.length} trained, ` +
          `${status.pending} check(s) queued, training ${status.training ?? "nothing"}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function label(repo: string): string {
  return `${repo}${repo === TRAIN_REPO ? " (trained on)" : repo === "all" ? "" : " (held out)"}`;
}

function row(title: string, byRepo: Map<string, Scores>): string {
  const cells = [...byRepo].map(([repo, s]) => {
    const a = averages(s);
    return `${label(repo)} ${a.recall5.toFixed(3)} / ${a.mrr10.toFixed(3)}`;
  });
  return `${title.padEnd(38)} ${cells.join("   ")}`;
}

/** The pool the reranker orders for a prompt (`mode=candidates`). */
async function candidates(daemon: TestDaemon, query: RealQuery): Promise<string[]> {
  const params = new URLSearchParams({
    namespace: query.namespace,
    query: query.query,
    mode: "candidates",
  });
  const res = await daemon.fetch(`/v1/memories/search?${params}`);
  if (res.status !== 200) throw new Error(`search (candidates) answered ${res.status}`);
  return (await res.json() as { record_id: string }[]).map((r) => r.record_id);
}

/**
 * Waits, as the set's scorer does, until the collector holds the term space its retrain rule
 * says is due for a namespace of `pool` records (`trainingDue`): nothing pending or training.
 * Returns the pool it waited for, or `waitedAt` when nothing was due.
 */
async function catchUp(
  daemon: TestDaemon,
  namespace: string,
  options: { pool: number; waitedAt: number },
): Promise<number> {
  const deadline = performance.now() + 600_000;
  while (true) {
    const res = await daemon.fetch("/v1/stats");
    const status = (await res.json() as { term_spaces: TermSpacesStatus }).term_spaces;
    const trained = status.namespaces.find((n) => n.namespace === namespace)?.records ?? 0;
    const due = options.pool > options.waitedAt &&
      trainingDue(options.pool, { trained, minRecords: TERM_SPACE_MIN_RECORDS });
    if (!due) return options.waitedAt;
    if (status.pending === 0 && status.training === null) return options.pool;
    if (performance.now() > deadline) {
      throw new Error(`the term space of ${namespace} (${options.pool} records) took over 600 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string" },
      "max-queries": { type: "string" },
      quick: { type: "boolean" },
    },
  });
  const set = await loadRealSet(values.data);
  const max = values["max-queries"]
    ? Number(values["max-queries"])
    : values.quick
    ? 200
    : set.queries.length;
  // A fixed, spread-out subset when asked for fewer queries.
  const step = set.queries.length / Math.min(max, set.queries.length);
  const queries = Array.from(
    { length: Math.min(max, set.queries.length) },
    (_, i) => set.queries[Math.floor(i * step)],
  );
  const noAnswer = await loadNoAnswerPrompts();
  await using daemon = await startTestDaemon({
    settings: {
      // Ten records come back; extraction waits, so the prompts do not become memories.
      retrieval: { limit: 10, tokenBudget: 20_000 },
      extraction: { strategy: "heuristic", idleMs: 300_000, sizeThresholdBytes: 16_777_216 },
    },
  });
  const started = performance.now();
  const inject = new Map<string, Scores>([["all", emptyScores()]]);
  const lex = new Map<string, Scores>([["all", emptyScores()]]);
  const reached: { query: RealQuery; ids: string[] }[] = [];
  const serverMs: number[] = [];
  const clientMs: number[] = [];
  const waitedAt = new Map<string, number>();
  const savedIds = new Set<string>();
  // As of each fix: the history saved in time order, each prompt asked once the records made by
  // its fix are in (and the term space due for them is trained), never a record made after it.
  for (const { query: q, batch, pool: size } of asOfSteps(set.records, queries)) {
    await pool(batch, 8, async (record) => {
      const res = await postJson(daemon, "/v1/memories", record);
      if (res.status !== 200) throw new Error(`saving ${record.record_id}: ${await res.text()}`);
      await res.body?.cancel();
    });
    for (const r of batch) savedIds.add(r.record_id);
    if (batch.length > 0) {
      waitedAt.set(
        q.namespace,
        await catchUp(daemon, q.namespace, {
          pool: size,
          waitedAt: waitedAt.get(q.namespace) ?? 0,
        }),
      );
    }
    for (const table of [inject, lex]) if (!table.has(q.repo)) table.set(q.repo, emptyScores());
    const hook = await injected(daemon, q.namespace, q.query);
    serverMs.push(hook.serverMs);
    clientMs.push(hook.clientMs);
    addRanking(inject.get(q.repo)!, hook.ids, { relevant: q.relevant });
    addRanking(inject.get("all")!, hook.ids, { relevant: q.relevant });
    const plain = await lexical(daemon, q);
    addRanking(lex.get(q.repo)!, plain, { relevant: q.relevant });
    addRanking(lex.get("all")!, plain, { relevant: q.relevant });
    reached.push({ query: q, ids: await candidates(daemon, q) });
    if (reached.length % 100 === 0) {
      console.log(
        `${reached.length} of ${queries.length} queries asked, ${savedIds.size} records saved (${
          ((performance.now() - started) / 1000).toFixed(0)
        } s)`,
      );
    }
  }
  // The no-answer prompts meet the whole history, with every namespace's space trained.
  const rest = set.records.filter((r) => !savedIds.has(r.record_id));
  await pool(rest, 8, async (record) => {
    const res = await postJson(daemon, "/v1/memories", record);
    await res.body?.cancel();
  });
  const spaces = await waitForTermSpaces(daemon, [...set.repos.keys()]);
  // "all" last in the printed rows.
  const ordered = (m: Map<string, Scores>) =>
    new Map([...m].filter(([k]) => k !== "all").sort().concat([["all", m.get("all")!]]));
  const recall = candidateRecall(reached);

  let silent = 0, asked = 0, tokens = 0;
  for (const namespace of set.repos.keys()) {
    for (const prompt of noAnswer) {
      const hook = await injected(daemon, namespace, prompt);
      asked++;
      if (hook.ids.length === 0) silent++;
      tokens += Math.ceil(hook.context.length / 4);
    }
  }
  const server = summarize(serverMs);
  const client = summarize(clientMs);
  console.log(
    `\nreal retrieval set, as of each fix: ${queries.length} queries, recall@5 / MRR@10 ` +
      `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  console.log(row("injected (prompt hook, default)", ordered(inject)));
  console.log(row("GET /v1/memories/search?mode=lexical", ordered(lex)));
  const keys = [...recall.keys()].filter((k) => k !== "all").sort().concat("all");
  console.log(
    `${"candidate recall (answer in pool)".padEnd(38)} ` +
      keys.map((k) => `${label(k)} ${recall.get(k)!.toFixed(3)}`).join("   "),
  );
  console.log(
    `\nno-answer prompts: ${silent} of ${asked} (${(100 * silent / asked).toFixed(1)}%) ` +
      `inject nothing; ${tokens} tokens injected in all (${
        (tokens / asked).toFixed(1)
      } per prompt)`,
  );
  console.log(
    `retrieval latency, collector side: p50 ${formatMs(server.p50)}, p95 ${
      formatMs(server.p95)
    }; ` +
      `whole request: p50 ${formatMs(client.p50)}, p95 ${formatMs(client.p95)}`,
  );
  const json = {
    queries: queries.length,
    records: set.records.length,
    protocol: "as of each fix",
    trained_on: TRAIN_REPO,
    candidate_recall: Object.fromEntries(recall),
    injected: Object.fromEntries([...ordered(inject)].map(([k, s]) => [k, averages(s)])),
    lexical: Object.fromEntries([...ordered(lex)].map(([k, s]) => [k, averages(s)])),
    no_answer: { asked, silent, tokens },
    term_spaces: spaces.namespaces.map(({ records, terms }) => ({ records, terms })),
    latency_ms: { server, client },
  };
  await Deno.mkdir(fileURLToPath(new URL("../../../.bench/", import.meta.url)), {
    recursive: true,
  });
  await Deno.writeTextFile(OUT, JSON.stringify(json, null, 2) + "\n");
  console.log(`wrote ${OUT}`);
}
