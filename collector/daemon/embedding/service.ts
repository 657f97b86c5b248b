/**
 * The embedding service: one embedder (loaded in the background, reloaded after a failure),
 * the per-namespace vector index and the continuous backfill, behind the few calls the rest of
 * the collector makes.
 *
 * Everything here degrades instead of failing: while the model loads, after it fails or when
 * the backend is `off`, `embedQuery` returns null (retrieval is lexical-only), new records are
 * committed without embeddings (the backfill adds them later) and `status()` says why. Nothing
 * is ever dropped for want of a vector.
 *
 * Calls to the model go through a two-level gate: one call at a time, queries before
 * background work, and background work cut into small chunks, so a query waits for at most one
 * chunk (≈0.1 s of record inputs on use-lite) rather than a whole backfill batch.
 *
 * @module
 */
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { DEFAULTS } from "@kiro-learn/core/settings";
import type { RecordWithEmbedding, Storage } from "@kiro-learn/core/storage";
import type { Logger } from "../runtime/mod.ts";
import { Backfill, type BackfillOptions, type BackfillProgress } from "./backfill.ts";
import {
  composeEmbeddingInput,
  type Embedder,
  type EmbedderState,
  type EmbedderStatus,
  type EmbeddingBackendName,
  EmbedTimeoutError,
  queryEmbeddingInput,
  withInputVersion,
  withTimeout,
} from "./embedder.ts";
import { installedModel } from "./models.ts";
import { createOnnxEmbedder } from "./onnx.ts";
import { createUseLiteEmbedder } from "./use_lite.ts";
import { COLLECTOR_VECTOR_PRECISION, VectorIndex } from "./vector_index.ts";

/** Everything status and the viewer show about embeddings. */
export interface EmbeddingServiceStatus extends EmbedderStatus {
  /** Vector length of the loaded model (null when none is loaded). */
  dim: number | null;
  /** Backfill progress (null when the backend is off). */
  backfill: BackfillProgress | null;
  /** What the vector index holds in memory. */
  index: { namespaces: number; vectors: number; bytes: number };
  /** When the next load attempt happens (ISO), after a failure. */
  retry_at?: string;
}

/** The embedding side of the collector, as hybrid retrieval and the hooks use it. */
export interface EmbeddingService {
  /** Backend, model, state (`ready` / `loading` / `failed` / `off`), error, backfill, index. */
  status(): EmbeddingServiceStatus;
  /**
   * The normalised vector of a query, or null when the model is not ready, the call fails or
   * it exceeds `timeoutMs` (default `embedding.timeoutMs`; includes waiting for the model).
   * Never throws.
   */
  embedQuery(text: string, options?: { timeoutMs?: number }): Promise<Float32Array | null>;
  /**
   * Normalised vectors of several texts (background priority), or null on any failure or when
   * the model is not ready. Never throws.
   */
  embedTexts(texts: string[], options?: { timeoutMs?: number }): Promise<Float32Array[] | null>;
  /**
   * The extraction hook: the records with their embeddings, time-bounded. On any failure the
   * records come back without embeddings (the backfill adds them later), never fewer records.
   */
  embedRecords(records: MemoryRecord[]): Promise<RecordWithEmbedding[]>;
  /** The vector index (search it with vectors from `embedQuery`; its model is `index.model`). */
  index: VectorIndex;
  /** Tell after records were committed (puts their vectors into the index, nudges backfill). */
  recordsCommitted(records: readonly MemoryRecord[]): void;
  /** Tell after a record was saved or edited (its vector is recomputed by the backfill). */
  recordSaved(record: MemoryRecord): void;
  /** Tell after records were deleted (they leave the index at once). */
  recordsDeleted(ids: readonly string[]): void;
  /** Resolves once the first load attempt has finished: true when the model is ready. */
  whenLoaded(): Promise<boolean>;
  /** Stops the backfill and the embedder; idempotent. */
  close(): Promise<void>;
}

/** Starts an embedder; `onDead` must be called if it dies after loading. */
export type EmbedderFactory = (hooks: { onDead: (error: Error) => void }) => Promise<Embedder>;

/** Options for {@linkcode createEmbeddingService}. */
export interface EmbeddingServiceOptions {
  /** `embedding.backend`. */
  backend: EmbeddingBackendName;
  /** The database. */
  storage: Storage;
  /** Logger. */
  logger: Logger;
  /** `embedding.timeoutMs`: how long one text may take (a query; per text in background). */
  timeoutMs: number;
  /** The data dir (the onnx backend's models are in `<dataDir>/models`). */
  dataDir: string;
  /** Replaces the backend's embedder (tests). */
  factory?: EmbedderFactory;
  /** Restrict the use-lite Worker's permissions (default true; see `use_lite.ts`). */
  sandbox?: boolean;
  /** Backfill tuning (tests). */
  backfill?: Partial<Omit<BackfillOptions, "storage" | "embedder" | "onEmbedded">>;
  /** First wait before reloading a failed model (default 60 s; doubles up to 10 min). */
  reloadDelayMs?: number;
  /**
   * A namespace's vectors are dropped from memory after this long without a load or search
   * (default: the `embedding.vectorIdleMs` setting's); they reload from storage when next
   * searched. Only reconciliation and `mode=vector` search them, in bursts (100k records take
   * 7.3 MiB of sign codes; the idle collector's RSS with them held and dropped: `deno task bench
   * memory`, figures in docs/benchmarks.md).
   */
  vectorIdleMs?: number;
  /**
   * use-lite: how long without a call before a model Worker that grew is replaced by a fresh one
   * (default: the `embedding.workerIdleRecycleMs` setting's; see `createUseLiteEmbedder`): the
   * growth a query embedding leaves goes back to the system (`deno task bench memory`, figures in
   * docs/benchmarks.md); a replacement costs a model load, ~0.3 s of one core.
   */
  workerIdleRecycleMs?: number;
}

/**
 * Background texts per model call and lane (`Embedder.lanes`): small, so a query never waits
 * long behind one. Larger calls are no faster per text on use-lite (dev-set records, one Worker:
 * 41.6 records/s at 4, 39.7 at 8 grouped by characters, load average 1.4–1.8; grouped by token
 * counts, 8 took the same CPU time per record as 4; one-off measurements of stops 22 and 24 with
 * `deno task bench backfill` at each size): the longest text of a call sets everyone's padding.
 */
const CHUNK: Record<EmbeddingBackendName, number> = { "use-lite": 4, onnx: 16, off: 1 };

/** Timeouts in a row (on full-length bounds) after which the embedder is restarted. */
const MAX_TIMEOUTS = 3;

/** Most recently deleted ids remembered, so a late backfill write cannot re-add them. */
const DELETED_MEMORY = 10_000;

/** Vectors computed for records not yet committed are forgotten after this long. */
const STASH_TTL_MS = 10 * 60_000;

/** One model call at a time; queries first. */
class Gate {
  #busy = false;
  #high: (() => void)[] = [];
  #low: (() => void)[] = [];

  /** Runs `fn` when the model is free; `isCancelled` skips it if the caller gave up waiting. */
  async run<T>(
    fn: () => Promise<T>,
    options: { high: boolean; isCancelled: () => boolean },
  ): Promise<T | undefined> {
    if (this.#busy) {
      await new Promise<void>((resolve) => (options.high ? this.#high : this.#low).push(resolve));
    }
    this.#busy = true;
    try {
      if (options.isCancelled()) return undefined;
      return await fn();
    } finally {
      const next = this.#high.shift() ?? this.#low.shift();
      if (next) next();
      else this.#busy = false;
    }
  }
}

/** Indices of `lengths`, shortest first (stable: equal lengths keep their order). */
export function lengthOrder(lengths: readonly number[]): number[] {
  return lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Creates the service and starts loading the model in the background (never blocks). */
export function createEmbeddingService(options: EmbeddingServiceOptions): EmbeddingService {
  const { backend, storage, logger } = options;
  // Sign codes, shortlist rescored with the stored vectors: an eighth of int8's memory, exact
  // similarities (see vector_index.ts).
  const index = new VectorIndex(storage, {
    model: null,
    dim: 0,
    precision: COLLECTOR_VECTOR_PRECISION,
  });
  // One gate per loaded model: a model that hung holds its own gate, never its successor's.
  let gate = new Gate();
  const deleted = new Set<string>();
  const stash = new Map<string, { vector: Float32Array; model: string; at: number }>();
  const firstLoad = Promise.withResolvers<boolean>();

  let embedder: Embedder | null = null;
  let state: EmbedderState = backend === "off" ? "off" : "loading";
  let error: string | undefined;
  let modelId: string | null = null;
  let timeouts = 0;
  /** A started model call outlived its bound and has not answered yet. */
  let overdue = false;
  let closed = false;
  let reloadDelay = options.reloadDelayMs ?? 60_000;
  let reloadTimer: ReturnType<typeof setTimeout> | undefined;
  const vectorIdleMs = options.vectorIdleMs ?? DEFAULTS.embedding.vectorIdleMs;
  const unloadTimer = setInterval(() => {
    const dropped = index.unloadIdle(vectorIdleMs);
    if (dropped.length > 0) {
      logger.debug("vectors unloaded after idle time", { namespaces: dropped.length });
    }
  }, Math.min(60_000, vectorIdleMs));
  // Never what keeps a process alive: close() clears it anyway.
  Deno.unrefTimer(unloadTimer);
  let retryAt: number | null = null;
  let loading: Promise<void> | null = null;

  // The built-in backends are identified with the input version (`…+in4`), so a change of
  // `composeEmbeddingInput` re-embeds stored records like a change of model does.
  const factory: EmbedderFactory = options.factory ?? (backend === "onnx"
    ? async (hooks) => {
      const model = await installedModel(options.dataDir);
      return withInputVersion(
        await createOnnxEmbedder({
          modelDir: model.dir,
          modelId: model.model_id,
          onDead: hooks.onDead,
        }),
      );
    }
    : async (hooks) =>
      withInputVersion(
        await createUseLiteEmbedder({
          sandbox: options.sandbox,
          onDead: hooks.onDead,
          recycleIdleMs: options.workerIdleRecycleMs,
        }),
      ));

  /** Calls the model through the gate, bounded by `timeoutMs` (waiting included). */
  async function call(
    texts: string[],
    opts: { high: boolean; timeoutMs: number },
  ): Promise<Float32Array[]> {
    const current = embedder;
    if (!current || state !== "ready") throw new Error(`embedder is ${state}`);
    let cancelled = false;
    let started = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cancelled = true;
        reject(new EmbedTimeoutError(opts.timeoutMs));
      }, opts.timeoutMs);
    });
    const work = gate.run(() => {
      started = true;
      return current.embed(texts);
    }, {
      high: opts.high,
      isCancelled: () => cancelled,
    });
    // A late failure after the timeout has nobody to tell; a late answer un-sticks the model.
    work.catch(() => {}).finally(() => {
      if (started) overdue = false;
    });
    try {
      const vectors = await Promise.race([work, timeout]);
      if (!vectors) throw new EmbedTimeoutError(opts.timeoutMs);
      timeouts = 0; // Any answer proves the model alive.
      return vectors;
    } catch (e) {
      // Only full-length bounds count, and only against a call the model was working on or
      // one queued behind an overdue call: a query given 50 ms of budget, or one waiting
      // behind a healthy batch, proves nothing about the model.
      if (e instanceof EmbedTimeoutError && started) overdue = true;
      if (
        e instanceof EmbedTimeoutError && (started || overdue) &&
        opts.timeoutMs >= options.timeoutMs
      ) {
        if (++timeouts >= MAX_TIMEOUTS && embedder === current) {
          markFailed(new Error(`the model stopped answering (${timeouts} timeouts in a row)`));
          current.close().catch(() => {});
        }
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Background embedding: chunks of `CHUNK[backend]` texts per lane of the embedder, each
   * bounded by `timeoutMs` per text (`embedding.timeoutMs` is how long one text may take).
   */
  async function embedBackground(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    const size = CHUNK[backend] * (embedder?.lanes ?? 1);
    // Similar lengths share a chunk: the model pads every text of a call to the longest one.
    // One lane's call has nothing to group: the count would only cost a round trip.
    const lengths = texts.length > CHUNK[backend]
      ? await modelLengths(texts)
      : texts.map((t) => t.length);
    const order = lengthOrder(lengths);
    for (let i = 0; i < order.length; i += size) {
      const picked = order.slice(i, i + size);
      const vectors = await call(picked.map((j) => texts[j]), {
        high: false,
        timeoutMs: options.timeoutMs * picked.length,
      });
      picked.forEach((j, k) => (out[j] = vectors[k]));
    }
    return out;
  }

  /** The backfill's batches: the embedder may add capacity for a run of them (a spare Worker). */
  function embedBackfill(texts: string[]): Promise<Float32Array[]> {
    embedder?.expectBatches?.();
    return embedBackground(texts);
  }

  /**
   * Each text's length as the model sees it: its token count when the embedder tells (bounded
   * like one text's embedding), else its characters.
   */
  async function modelLengths(texts: string[]): Promise<number[]> {
    const current = embedder;
    if (current?.tokenCounts) {
      try {
        return await withTimeout(current.tokenCounts(texts), options.timeoutMs);
      } catch (e) {
        // Only the grouping suffers: the embedding calls report a broken model themselves.
        logger.debug("token counts failed; grouping texts by characters", { error: errorText(e) });
      }
    }
    return texts.map((t) => t.length);
  }

  const backfill = backend === "off" ? null : new Backfill({
    storage,
    logger,
    ...options.backfill,
    embedder: () =>
      embedder && state === "ready" ? { model_id: embedder.model_id, embed: embedBackfill } : null,
    onEmbedded: (record, vector, model) => {
      if (!deleted.has(record.record_id) && model === index.model) {
        index.upsert(record.namespace, record.record_id, vector);
      }
    },
  });

  function markFailed(e: Error): void {
    if (closed) return;
    const failed = embedder;
    embedder = null;
    state = "failed";
    error = e.message;
    logger.warn("embedder failed: retrieval is lexical-only until it reloads", {
      backend,
      model: modelId,
      error: error,
      retry_in_ms: reloadDelay,
    });
    failed?.close().catch(() => {});
    retryAt = Date.now() + reloadDelay;
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(() => {
      retryAt = null;
      load();
    }, reloadDelay);
    reloadDelay = Math.min(reloadDelay * 2, 10 * 60_000);
  }

  function load(): void {
    if (closed || backend === "off" || loading) return;
    state = "loading";
    const started = performance.now();
    loading = (async () => {
      let loaded: Embedder | null = null;
      try {
        loaded = await factory({
          onDead: (e) => {
            if (embedder === loaded) markFailed(e);
          },
        });
        if (closed) {
          await loaded.close();
          return;
        }
        embedder = loaded;
        gate = new Gate();
        overdue = false;
        modelId = loaded.model_id;
        state = "ready";
        error = undefined;
        timeouts = 0;
        reloadDelay = options.reloadDelayMs ?? 60_000;
        index.setModel(loaded.model_id, loaded.dim);
        logger.info("embedder ready", {
          backend,
          model: loaded.model_id,
          dim: loaded.dim,
          load_ms: Math.round(performance.now() - started),
        });
        backfill?.nudge();
      } catch (e) {
        markFailed(e instanceof Error ? e : new Error(String(e)));
      } finally {
        loading = null;
        firstLoad.resolve(state === "ready");
      }
    })();
  }

  if (backend === "off") firstLoad.resolve(false);
  else {
    backfill?.start();
    load();
  }

  return {
    index,
    status() {
      const s: EmbeddingServiceStatus = {
        backend,
        model_id: modelId,
        state,
        dim: state === "ready" && embedder ? embedder.dim : null,
        backfill: backfill?.progress() ?? null,
        index: (({ namespaces, vectors, bytes }) => ({ namespaces, vectors, bytes }))(
          index.stats(),
        ),
      };
      if (error) s.error = error;
      if (state === "off") s.error = "embedding.backend is off: retrieval is lexical-only";
      if (retryAt !== null && state === "failed") s.retry_at = new Date(retryAt).toISOString();
      return s;
    },
    async embedQuery(text, opts = {}) {
      if (state !== "ready") return null;
      try {
        const [vector] = await call([queryEmbeddingInput(text)], {
          high: true,
          timeoutMs: opts.timeoutMs ?? options.timeoutMs,
        });
        return vector ?? null;
      } catch (e) {
        logger.debug("query embedding failed", { error: errorText(e) });
        return null;
      }
    },
    async embedTexts(texts, opts = {}) {
      if (state !== "ready") return null;
      if (texts.length === 0) return [];
      try {
        const work = embedBackground(texts);
        if (opts.timeoutMs === undefined) return await work;
        work.catch(() => {}); // Settles after the deadline; nobody is waiting any more.
        return await withTimeout(work, opts.timeoutMs);
      } catch (e) {
        logger.debug("embedding failed", { error: errorText(e) });
        return null;
      }
    },
    async embedRecords(records) {
      const plain = records.map((record) => ({ record }));
      const current = embedder;
      if (records.length === 0 || state !== "ready" || !current) return plain;
      const now = Date.now();
      for (const [id, entry] of stash) if (now - entry.at > STASH_TTL_MS) stash.delete(id);
      try {
        const vectors = await embedBackground(records.map(composeEmbeddingInput));
        return records.map((record, i) => {
          stash.set(record.record_id, { vector: vectors[i], model: current.model_id, at: now });
          return { record, embedding: { model: current.model_id, vector: vectors[i] } };
        });
      } catch (e) {
        logger.warn("records committed without embeddings; the backfill will add them", {
          records: records.length,
          error: errorText(e),
        });
        return plain;
      }
    },
    recordsCommitted(records) {
      let missing = false;
      for (const r of records) {
        const entry = stash.get(r.record_id);
        stash.delete(r.record_id);
        if (entry && entry.model === index.model) {
          index.upsert(r.namespace, r.record_id, entry.vector);
        } else missing = true;
      }
      if (missing) backfill?.nudge();
    },
    recordSaved(record) {
      // An edit may have changed the text: the old vector must not answer queries meanwhile.
      index.delete([record.record_id]);
      backfill?.nudge([record.record_id]);
    },
    recordsDeleted(ids) {
      index.delete(ids);
      for (const id of ids) {
        stash.delete(id);
        deleted.add(id);
        if (deleted.size > DELETED_MEMORY) deleted.delete(deleted.values().next().value!);
      }
    },
    whenLoaded: () => firstLoad.promise,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(reloadTimer);
      clearInterval(unloadTimer);
      await backfill?.close();
      await loading;
      const current = embedder;
      embedder = null;
      await current?.close();
    },
  };
}
