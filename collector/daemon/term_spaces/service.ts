/**
 * Each namespace's term space (`core/search/record_space.ts`), trained in the background and
 * handed to the ranked search without ever making it wait.
 *
 * - A namespace gets a space once it holds {@linkcode TERM_SPACE_MIN_RECORDS} records (below
 *   that, co-occurrence statistics are noise), and a new one once it has grown by
 *   {@linkcode RETRAIN_GROWTH} (at least {@linkcode RETRAIN_MIN_RECORDS} records) since.
 * - Training runs in a Worker, one namespace at a time, a fresh Worker each time (a space is
 *   trained every few hundred records at most; an idle Worker would only hold memory). The
 *   Worker can read its own code and nothing else: it computes on the documents it is sent.
 * - Spaces are stored in SQLite (`term_spaces`), so a restart loads them instead of training; a
 *   stored space of another `RECORD_SPACE_VERSION` is retrained.
 * - {@linkcode TermSpaceService.spaceFor} is synchronous and never throws: it answers with what
 *   is in memory (null while nothing is) and schedules a check if one is due. A failed training
 *   is logged and tried again after a pause that doubles up to an hour.
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import {
  decodeTermSpace,
  GATE_MIN_CORPUS,
  RECORD_SPACE_VERSION,
  type TermSpace,
  type TermSpaceDoc,
} from "@kiro-learn/core/search";
import type { Storage } from "@kiro-learn/core/storage";
import type { Logger } from "../runtime/mod.ts";
import {
  computeOnlyPermissions,
  daemonWorkerOptions,
  TERM_SPACE_WORKER,
  termSpaceWorkerCodePaths,
} from "../permissions/mod.ts";
import type { TermSpaceWorkerReply, TermSpaceWorkerRequest } from "./_worker.ts";

/**
 * Records a namespace needs before it gets a space: the size at which the no-answer gate starts
 * trusting a store's statistics, for the same reason.
 */
export const TERM_SPACE_MIN_RECORDS = GATE_MIN_CORPUS;

/** Growth since the last training (a share of what it was trained on) that retrains. */
const RETRAIN_GROWTH = 0.2;

/** …but never for fewer new records than this. */
const RETRAIN_MIN_RECORDS = 200;

/**
 * Records read from the database per page when gathering training documents: a page holds the
 * collector's thread while it is read, and requests run between pages.
 */
const TERM_SPACE_PAGE = 1_000;

/**
 * A space is learned from a namespace's newest records, at most this many: that is plenty for a
 * project's word relations, and it bounds training time and memory whatever the namespace's size
 * (older records are still ranked with it: a candidate is folded in by its own words).
 */
const TERM_SPACE_MAX_TRAINING_RECORDS = 20_000;

/**
 * Spaces held in memory at once (default; a few MB each at 4,000 records, tens of MB at 100k):
 * the least recently searched one beyond this is dropped from memory, and loaded again from
 * SQLite in the background when its namespace is searched next.
 */
const MAX_SPACES_IN_MEMORY = 8;

type Timer = ReturnType<typeof setTimeout>;

/** How often a namespace that is being searched is checked for growth (default). */
const CHECK_INTERVAL_MS = 60_000;

/**
 * A namespace whose records change is checked once they have stopped changing for this long
 * (default): an import or a burst of extractions is learned whole, once, instead of a space
 * trained on its first part and not again until the namespace grows by a fifth.
 */
const SETTLE_MS = 2_000;

/** …but no later than this after the first change, for a namespace that never goes quiet. */
const SETTLE_MAX_MS = 30_000;

/** First pause after a failed training; it doubles up to {@linkcode MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 60_000;
const MAX_RETRY_MS = 3_600_000;

/** What a space trainer does: documents in, an encoded space out. */
export type TrainTermSpace = (
  pages: AsyncIterable<TermSpaceDoc[]>,
) => Promise<{ data: Uint8Array; terms: number }>;

/** One namespace's state, as status shows it. */
export interface TermSpaceState {
  /** The namespace. */
  namespace: string;
  /** Records the space in memory was trained on (0: none yet). */
  records: number;
  /** Terms it knows. */
  terms: number;
  /** When it was trained (ISO), or null. */
  trained_at: string | null;
  /** Trainings that failed in a row. */
  failures: number;
  /** The last failure's message, or null. */
  last_error: string | null;
}

/** The service. */
export interface TermSpaceService {
  /** The namespace's space if one is in memory (never waits, never throws); schedules a check. */
  spaceFor(namespace: string): TermSpace | null;
  /** The namespace's records changed: check it soon (training if it grew enough). */
  recordsChanged(namespace: string): void;
  /**
   * Records were forgotten: a space whose stored row the storage deleted with them is dropped
   * from memory too, and trained again without them.
   */
  recordsForgotten(): void;
  /** Checks a namespace now (loads, trains if due); resolves when done, never rejects. */
  refresh(namespace: string): Promise<void>;
  /** Resolves once no check or training is queued or running. */
  idle(): Promise<void>;
  /** Per namespace: what is in memory; and whether work is queued. */
  status(): { pending: number; training: string | null; namespaces: TermSpaceState[] };
  /** Stops: queued checks are dropped, a running training's Worker is ended. */
  close(): Promise<void>;
}

/** Options of {@linkcode createTermSpaceService}. */
export interface TermSpaceServiceOptions {
  /** Where records and spaces are. */
  storage: Pick<
    Storage,
    "termSpaceDocs" | "countRecords" | "getTermSpace" | "putTermSpace" | "listTermSpaces"
  >;
  /** Logger. */
  logger: Logger;
  /**
   * Run the Worker with only read access to its code (needs `--unstable-worker-options`: the
   * daemon passes true). Default false: under `deno test -A` the Worker inherits the test's.
   */
  sandbox?: boolean;
  /** Another trainer (tests); default: a Worker per training. */
  train?: TrainTermSpace;
  /** Records before a first space (default {@linkcode TERM_SPACE_MIN_RECORDS}). */
  minRecords?: number;
  /** How often a searched namespace is checked for growth (default 60 s). */
  checkIntervalMs?: number;
  /** Spaces held in memory at once (default {@linkcode MAX_SPACES_IN_MEMORY}). */
  maxInMemory?: number;
  /** Quiet time after a change before a check (default {@linkcode SETTLE_MS}). */
  settleMs?: number;
}

/**
 * A namespace's training documents, page by page in row order: what the daemon sends its Worker
 * and what the reranker's trainer trains on (one reader, so both learn the same space).
 */
export async function* termSpaceDocPages(
  storage: Pick<Storage, "termSpaceDocs">,
  namespace: string,
): AsyncIterable<TermSpaceDoc[]> {
  let after = 0;
  while (true) {
    const page = await storage.termSpaceDocs(namespace, {
      after,
      limit: TERM_SPACE_PAGE,
      newest: TERM_SPACE_MAX_TRAINING_RECORDS,
    });
    if (page.docs.length === 0) return;
    yield page.docs;
    after = page.last;
    // Let requests in between pages: a large namespace is read without holding the thread.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** True when a namespace of `count` records should get a (new) space over one of `trained`. */
export function trainingDue(count: number, options: { trained: number; minRecords: number }) {
  if (count < options.minRecords) return false;
  if (options.trained === 0) return true;
  return count - options.trained >= Math.max(RETRAIN_MIN_RECORDS, RETRAIN_GROWTH * options.trained);
}

/** The Worker's permissions: read its code, nothing else. */
export function termSpaceWorkerPermissions(): Deno.PermissionOptionsObject {
  return computeOnlyPermissions(termSpaceWorkerCodePaths());
}

/** Trains in a fresh Worker, ended when it answers (or when `signal` aborts). */
export function workerTrainer(options: { sandbox?: boolean; signal?: AbortSignal } = {}) {
  return async (pages: AsyncIterable<TermSpaceDoc[]>) => {
    const worker = new Worker(
      pathToFileURL(TERM_SPACE_WORKER),
      daemonWorkerOptions("kiro-learn-term-space", {
        permissions: termSpaceWorkerPermissions(),
        sandbox: options.sandbox ?? false,
      }),
    );
    const done = Promise.withResolvers<{ data: Uint8Array; terms: number }>();
    // The Worker can fail (or the collector close) while pages are still being read: the
    // rejection is awaited below, and must not count as unhandled meanwhile, which would end
    // the whole collector. No more pages are sent once it has settled.
    let settled = false;
    done.promise.then(() => settled = true, () => settled = true);
    worker.onmessage = (event: MessageEvent<TermSpaceWorkerReply>) => {
      const reply = event.data;
      if (reply.type === "trained") done.resolve({ data: reply.data, terms: reply.terms });
      else done.reject(new Error(`term space training failed: ${reply.error}`));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      done.reject(new Error(`term space worker crashed: ${event.message}`));
    };
    worker.onmessageerror = () => done.reject(new Error("term space worker: unreadable message"));
    const abort = () => done.reject(new Error("term space training stopped: collector closing"));
    options.signal?.addEventListener("abort", abort);
    try {
      const send = (message: TermSpaceWorkerRequest) => worker.postMessage(message);
      for await (const docs of pages) {
        if (options.signal?.aborted || settled) break;
        send({ type: "docs", docs });
      }
      if (!settled) send({ type: "train" });
      return await done.promise;
    } finally {
      options.signal?.removeEventListener("abort", abort);
      worker.terminate();
    }
  };
}

// A namespace without a space: nothing in memory and nothing trained to compare growth with
// (and nothing stored to load either).
function dropSpace(e: Entry): void {
  Object.assign(e, { space: null, records: 0, terms: 0, trainedAt: null, loaded: true });
}

interface Entry {
  space: TermSpace | null;
  records: number;
  terms: number;
  trainedAt: string | null;
  loaded: boolean;
  checkedAt: number;
  failures: number;
  retryAt: number;
  lastError: string | null;
  usedAt: number;
}

/** Starts the service (nothing runs until a namespace is searched or changed). */
export function createTermSpaceService(options: TermSpaceServiceOptions): TermSpaceService {
  const { storage, logger } = options;
  const minRecords = options.minRecords ?? TERM_SPACE_MIN_RECORDS;
  const interval = options.checkIntervalMs ?? CHECK_INTERVAL_MS;
  const maxInMemory = options.maxInMemory ?? MAX_SPACES_IN_MEMORY;
  const stop = new AbortController();
  const train = options.train ?? workerTrainer({ sandbox: options.sandbox, signal: stop.signal });
  const entries = new Map<string, Entry>();
  const queued = new Set<string>();
  let training: string | null = null;
  let running = 0;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  let searches = 0; // orders the entries by their last search (Date.now() ties within a ms)
  const settleMs = options.settleMs ?? SETTLE_MS;
  // Changed namespaces waiting to go quiet.
  // The first and the last change of each, and its timer.
  const settling = new Map<
    string,
    { timer: Timer; since: number; last: number; fired: PromiseWithResolvers<void> }
  >();

  const entry = (namespace: string): Entry => {
    let e = entries.get(namespace);
    if (!e) {
      e = {
        space: null,
        records: 0,
        terms: 0,
        trainedAt: null,
        loaded: false,
        checkedAt: 0,
        failures: 0,
        retryAt: 0,
        lastError: null,
        usedAt: 0,
      };
      entries.set(namespace, e);
    }
    return e;
  };

  async function load(namespace: string, e: Entry): Promise<void> {
    e.loaded = true;
    const row = await storage.getTermSpace(namespace);
    let space: TermSpace | null = null;
    if (row !== null && row.version === RECORD_SPACE_VERSION) {
      try {
        space = decodeTermSpace(row.data);
      } catch (error) {
        logger.warn("stored term space unreadable; retraining it", {
          namespace,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (row === null || space === null) {
      // Nothing usable stored (never trained, another version, or deleted with a forgotten
      // record): whatever was trained before counts for nothing.
      dropSpace(e);
      return;
    }
    Object.assign(e, {
      space,
      records: row.record_count,
      terms: space.columns.size,
      trainedAt: row.trained_at,
    });
  }

  // Keeps at most maxInMemory spaces: the least recently searched others go (their stored copy
  // and record count stay, so they are loaded again, not retrained).
  function evict(): void {
    const held = [...entries.values()].filter((e) => e.space !== null);
    held.sort((a, b) => b.usedAt - a.usedAt);
    for (const e of held.slice(maxInMemory)) {
      e.space = null;
      e.loaded = false;
    }
  }

  async function check(namespace: string): Promise<void> {
    const e = entry(namespace);
    e.checkedAt = Date.now();
    if (!e.loaded) {
      await load(namespace, e);
      evict();
    }
    const count = await storage.countRecords(namespace);
    if (!trainingDue(count, { trained: e.records, minRecords }) || Date.now() < e.retryAt) return;
    training = namespace;
    const started = performance.now();
    // A record forgotten from now on may be among the documents read: see below.
    const readFrom = new Date().toISOString();
    try {
      const { data, terms } = await train(termSpaceDocPages(storage, namespace));
      if (closed) return;
      if (terms === 0) {
        // No word is shared by a few records without being in half of them: nothing to learn
        // yet. Not a failure to retry: the next try waits for the namespace to grow.
        Object.assign(e, {
          space: null,
          records: count,
          terms: 0,
          failures: 0,
          retryAt: 0,
          lastError: null,
        });
        logger.info("term space: no term to learn from yet", { namespace, records: count });
        return;
      }
      const space = decodeTermSpace(data);
      if (space === null) throw new Error("the Worker wrote a space of another version");
      // The documents were read a page at a time: count what the space was trained on again.
      const records = await storage.countRecords(namespace);
      const trainedAt = new Date().toISOString();
      const stored = await storage.putTermSpace({
        namespace,
        version: RECORD_SPACE_VERSION,
        record_count: Math.min(records, count),
        trained_at: trainedAt,
        data,
      }, { unlessForgottenSince: readFrom });
      if (!stored) {
        // Something was forgotten while this space learned: it may hold the forgotten words.
        // Dropped, and trained again from what is left.
        dropSpace(e);
        logger.info("term space dropped: records were forgotten while it trained", { namespace });
        void schedule(namespace);
        return;
      }
      Object.assign(e, {
        space,
        records: Math.min(records, count),
        terms,
        trainedAt,
        failures: 0,
        retryAt: 0,
        lastError: null,
      });
      evict();
      logger.info("term space trained", {
        namespace,
        records: e.records,
        terms,
        bytes: data.length,
        ms: Math.round(performance.now() - started),
      });
    } catch (error) {
      if (closed) return;
      const message = error instanceof Error ? error.message : String(error);
      e.failures++;
      e.lastError = message;
      e.retryAt = Date.now() + Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (e.failures - 1));
      logger.warn("term space training failed; the ranked search goes on without it", {
        namespace,
        failures: e.failures,
        error: message,
      });
    } finally {
      training = null;
    }
  }

  async function dropForgotten(): Promise<void> {
    const stored = new Set((await storage.listTermSpaces()).map((s) => s.namespace));
    for (const [namespace, e] of entries) {
      if (e.records === 0 || stored.has(namespace)) continue;
      dropSpace(e);
      void schedule(namespace);
    }
  }

  function enqueue(key: string, work: () => Promise<void>): Promise<void> {
    if (closed || queued.has(key)) return chain;
    queued.add(key);
    running++;
    chain = chain.then(async () => {
      queued.delete(key);
      if (closed) return;
      try {
        await work();
      } catch (error) {
        // A storage error (the database closing under us): logged, never thrown at a caller.
        if (!closed) {
          logger.warn("term space check failed", {
            key,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
    }).finally(() => {
      running--;
    });
    return chain;
  }

  // Namespaces are keyed as themselves; the forget sweep by a key no namespace has.
  const schedule = (namespace: string) => enqueue(namespace, () => check(namespace));

  return {
    spaceFor(namespace) {
      const e = entry(namespace);
      e.usedAt = ++searches;
      if (!e.loaded || Date.now() - e.checkedAt >= interval) void schedule(namespace);
      return e.space;
    },
    recordsChanged(namespace) {
      if (closed) return;
      const waiting = settling.get(namespace);
      // Saves come by the thousand in an import: a change only moves the time, one timer waits.
      if (waiting) {
        waiting.last = Date.now();
        return;
      }
      const fire = () => {
        const entry = settling.get(namespace)!;
        const quietFor = Date.now() - entry.last;
        const waited = Date.now() - entry.since;
        if (quietFor < settleMs && waited < SETTLE_MAX_MS) {
          entry.timer = setTimeout(fire, Math.min(settleMs - quietFor, SETTLE_MAX_MS - waited));
          return;
        }
        settling.delete(namespace);
        void schedule(namespace);
        entry.fired.resolve();
      };
      const now = Date.now();
      settling.set(namespace, {
        timer: setTimeout(fire, settleMs),
        since: now,
        last: now,
        fired: Promise.withResolvers<void>(),
      });
    },
    recordsForgotten() {
      void enqueue("\u0000forgotten", dropForgotten);
    },
    refresh(namespace) {
      return schedule(namespace);
    },
    async idle() {
      while (running > 0 || settling.size > 0) {
        await (settling.size > 0 ? settling.values().next().value!.fired.promise : chain);
      }
    },
    status() {
      return {
        pending: running + settling.size,
        training,
        namespaces: [...entries].map(([namespace, e]) => ({
          namespace,
          records: e.records,
          terms: e.terms,
          trained_at: e.trainedAt,
          failures: e.failures,
          last_error: e.lastError,
        })),
      };
    },
    async close() {
      closed = true;
      for (const waiting of settling.values()) {
        clearTimeout(waiting.timer);
        waiting.fired.resolve();
      }
      settling.clear();
      stop.abort();
      await chain.catch(() => {});
    },
  };
}
