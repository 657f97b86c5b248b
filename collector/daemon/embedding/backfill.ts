/**
 * The embedding backfill: gives every record an embedding from the current model, continuously.
 *
 * It wakes every `intervalMs` and whenever nudged (new records, edits), takes batches of
 * records that lack an embedding from the current model (none, or another model's: changing the
 * model re-embeds through here), embeds them and stores the vectors. What the old design got
 * wrong, fixed here:
 * - it keeps running after start-up, so records stored later (`/v1/memories`, edits, extraction
 *   commits whose embedding timed out) are caught up without a restart;
 * - a failed batch is retried record by record, and a record that fails on its own while the
 *   model still works (checked with a canary text) gets a failure count; at `maxFailures` the
 *   storage stops offering it, so one poison record never stalls the rest;
 * - when the model itself fails (the canary fails too), nobody is blamed; after
 *   `breakerThreshold` such batches in a row the breaker opens for `coolDownMs`, then one batch
 *   probes again (half-open).
 *
 * @module
 */
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import type { Storage } from "@kiro-learn/core/storage";
import { CircuitBreaker, type Logger } from "../runtime/mod.ts";

// The backfill is one loop: its breaker has one key.
const BACKFILL = "backfill";
import { composeEmbeddingInput } from "./embedder.ts";

/** What the backfill embeds with (time-bounded by the caller). */
export interface BackfillEmbedder {
  /** Model id stored with the vectors. */
  model_id: string;
  /** One normalised vector per text. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Backfill lifecycle, as status shows it. */
export type BackfillState = "idle" | "running" | "waiting" | "cooling" | "closed";

/** Progress for status and the viewer. */
export interface BackfillProgress {
  /** Model the backfill embeds for (null while no model is loaded). */
  model_id: string | null;
  /** Records still to embed (at most `probeLimit`; see `pending_capped`). */
  pending: number;
  /** True when there are more pending records than were counted. */
  pending_capped: boolean;
  /** Records embedded by the backfill since the collector started. */
  done: number;
  /** Records given up on (failed `maxFailures` times), as last counted. */
  failed: number;
  /** `idle` (nothing to do), `running`, `waiting` (no model ready), `cooling` (breaker open). */
  state: BackfillState;
  /** Consecutive batches the model failed. */
  consecutive_failures: number;
  /** When the open breaker half-opens (ISO), if open. */
  retry_at?: string;
  /** Last batch error. */
  last_error?: string;
}

/** Options for {@linkcode Backfill}. */
export interface BackfillOptions {
  /** The database. */
  storage: Pick<
    Storage,
    | "recordsNeedingEmbedding"
    | "countRecordsNeedingEmbedding"
    | "putEmbeddings"
    | "markEmbeddingFailed"
    | "getRecords"
  >;
  /** The current embedder, or null while none is ready. */
  embedder: () => BackfillEmbedder | null;
  /** Called after each stored embedding (the vector index upsert). */
  onEmbedded?: (record: MemoryRecord, vector: Float32Array, model: string) => void;
  /** Logger. */
  logger?: Logger;
  /** Records per batch (default 32). */
  batchSize?: number;
  /** Wake-up period when not nudged (default 30 s). */
  intervalMs?: number;
  /** Failures after which a record is no longer offered (default 3). */
  maxFailures?: number;
  /** Failed batches in a row that open the breaker (default 3). */
  breakerThreshold?: number;
  /** How long the open breaker waits before one probing batch (default 60 s). */
  coolDownMs?: number;
  /** Most records counted for `pending` and `failed` (default 1,000). */
  probeLimit?: number;
}

/** Text the backfill uses to tell a broken model from a broken record. */
const CANARY = "kiro-learn embedding health check";

/** Fewest milliseconds between two counts of pending records (the count reads rows). */
const PROBE_EVERY_MS = 5_000;

/** The continuous backfill. Call {@linkcode Backfill.start} once. */
export class Backfill {
  #o: Required<Omit<BackfillOptions, "onEmbedded" | "logger">> & BackfillOptions;
  #priority = new Set<string>();
  #state: BackfillState = "idle";
  #done = 0;
  #pending = 0;
  #pendingCapped = false;
  #failed = 0;
  #probedAt = -Infinity;
  #probedModel: string | null = null;
  #breaker: CircuitBreaker;
  #lastError: string | undefined;
  /** Errors seen since start: a run that saw none and emptied the queue clears `#lastError`. */
  #errors = 0;
  #wake: PromiseWithResolvers<void> = Promise.withResolvers();
  #loop: Promise<void> | null = null;
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Creates a stopped backfill. */
  constructor(options: BackfillOptions) {
    this.#o = {
      batchSize: 32,
      intervalMs: 30_000,
      maxFailures: 3,
      breakerThreshold: 3,
      coolDownMs: 60_000,
      probeLimit: 1_000,
      ...options,
    };
    this.#breaker = new CircuitBreaker({
      threshold: this.#o.breakerThreshold,
      cooldownMs: this.#o.coolDownMs,
    });
  }

  /** Starts the loop (idempotent). */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Wakes the loop now; `ids` (new or edited records) are embedded first, whatever they hold. */
  nudge(ids: Iterable<string> = []): void {
    for (const id of ids) this.#priority.add(id);
    this.#wake.resolve();
  }

  /** Progress for status and the viewer. */
  progress(): BackfillProgress {
    const model = this.#o.embedder()?.model_id ?? null;
    const progress: BackfillProgress = {
      model_id: model,
      pending: this.#pending,
      pending_capped: this.#pendingCapped,
      done: this.#done,
      failed: this.#failed,
      state: this.#state,
      consecutive_failures: this.#breaker.failures(BACKFILL),
    };
    if (this.#state === "cooling") {
      progress.retry_at = new Date(this.#breaker.openUntil(BACKFILL)).toISOString();
    }
    if (this.#lastError) progress.last_error = this.#lastError;
    return progress;
  }

  /**
   * Runs batches until nothing is left, the model is not ready, or the breaker opens; returns
   * how many records were embedded. The loop calls this; tests call it directly.
   */
  async runOnce(): Promise<number> {
    let embedded = 0;
    let touched = 0;
    const errorsBefore = this.#errors;
    while (!this.#closed) {
      const embedder = this.#o.embedder();
      if (!embedder) {
        this.#state = "waiting";
        return embedded;
      }
      if (!this.#breaker.allows(BACKFILL)) {
        this.#state = "cooling";
        return embedded;
      }
      await this.#probe(embedder.model_id, { force: false, failedOnly: false });
      const batch = await this.#nextBatch(embedder.model_id);
      if (batch.length === 0) {
        this.#state = "idle";
        this.#pending = 0;
        this.#pendingCapped = false;
        // A clean pass to the end: an earlier error is history, not what status should show.
        if (this.#errors === errorsBefore) this.#lastError = undefined;
        // Only the given-up count can have changed; recount it when this run did something.
        await this.#probe(embedder.model_id, { force: touched > 0, failedOnly: true });
        return embedded;
      }
      this.#state = "running";
      const ok = await this.#embedBatch(embedder, batch);
      if (ok === null) {
        this.#breaker.recordFailure(BACKFILL);
        if (!this.#breaker.allows(BACKFILL)) {
          this.#state = "cooling";
          this.#o.logger?.warn("embedding backfill breaker open", {
            model: embedder.model_id,
            failures: this.#breaker.failures(BACKFILL),
            retry_in_ms: this.#o.coolDownMs,
            error: this.#lastError,
          });
        }
        return embedded;
      }
      this.#breaker.recordSuccess(BACKFILL);
      embedded += ok;
      touched += batch.length;
      // Let requests in between batches: the backfill is background work.
      await new Promise((r) => setTimeout(r, 0));
    }
    return embedded;
  }

  /** Stops the loop and waits for the current batch to finish. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#state = "closed";
    clearTimeout(this.#timer);
    this.#wake.resolve();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      try {
        await this.runOnce();
      } catch (error) {
        // Storage errors land here; the next wake-up tries again.
        this.#fail(error);
        this.#o.logger?.warn("embedding backfill failed", { error: this.#lastError });
      }
      if (this.#closed) break;
      let wait = this.#o.intervalMs;
      if (this.#state === "cooling") {
        wait = Math.max(0, this.#breaker.openUntil(BACKFILL) - Date.now());
      }
      await new Promise<void>((resolve) => {
        this.#timer = setTimeout(resolve, wait);
        this.#wake.promise.then(resolve);
      });
      clearTimeout(this.#timer);
      this.#wake = Promise.withResolvers();
    }
  }

  #fail(error: unknown): void {
    this.#lastError = error instanceof Error ? error.message : String(error);
    this.#errors++;
  }

  async #nextBatch(model: string): Promise<MemoryRecord[]> {
    const size = this.#o.batchSize;
    const wanted = [...this.#priority].slice(0, size);
    for (const id of wanted) this.#priority.delete(id);
    const batch = wanted.length > 0 ? await this.#o.storage.getRecords(wanted) : [];
    if (batch.length < size) {
      const seen = new Set(batch.map((r) => r.record_id));
      const more = await this.#o.storage.recordsNeedingEmbedding({
        model,
        limit: size - batch.length + seen.size,
        maxFailures: this.#o.maxFailures,
      });
      for (const r of more) {
        if (batch.length >= size) break;
        if (!seen.has(r.record_id)) batch.push(r);
      }
    }
    return batch;
  }

  /** Embeds and stores a batch; returns how many were stored, or null if the model failed. */
  async #embedBatch(embedder: BackfillEmbedder, batch: MemoryRecord[]): Promise<number | null> {
    const texts = batch.map(composeEmbeddingInput);
    let vectors: (Float32Array | null)[];
    try {
      vectors = await embedder.embed(texts);
    } catch (error) {
      this.#fail(error);
      // Find the culprit: one record at a time.
      vectors = [];
      for (const text of texts) {
        try {
          vectors.push((await embedder.embed([text]))[0]);
        } catch (inner) {
          this.#fail(inner);
          vectors.push(null);
        }
      }
      if (vectors.every((v) => v === null)) {
        try {
          await embedder.embed([CANARY]);
        } catch {
          return null; // The model is down: blame no record.
        }
      }
    }
    const model = embedder.model_id;
    const ok: { record: MemoryRecord; vector: Float32Array }[] = [];
    const failed: MemoryRecord[] = [];
    for (const [i, record] of batch.entries()) {
      const vector = vectors[i];
      if (vector) ok.push({ record, vector });
      else failed.push(record);
    }
    await this.#o.storage.putEmbeddings(
      ok.map(({ record, vector }) => ({
        record_id: record.record_id,
        embedding: { model, vector },
      })),
    );
    for (const { record, vector } of ok) this.#o.onEmbedded?.(record, vector, model);
    const stored = ok.length;
    for (const record of failed) {
      await this.#o.storage.markEmbeddingFailed(record.record_id);
      this.#o.logger?.warn("record failed to embed", {
        record_id: record.record_id,
        error: this.#lastError,
      });
    }
    this.#done += stored;
    this.#pending = Math.max(0, this.#pending - batch.length);
    return stored;
  }

  async #probe(model: string, options: { force: boolean; failedOnly: boolean }): Promise<void> {
    const now = Date.now();
    const fresh = model === this.#probedModel && now - this.#probedAt < PROBE_EVERY_MS;
    if (fresh && !options.force) return;
    this.#probedAt = now;
    this.#probedModel = model;
    const limit = this.#o.probeLimit;
    // Counts, not rows: reading up to 1,001 whole records stalled ingest for ~20 ms each time.
    if (!options.failedOnly) {
      const pending = await this.#o.storage.countRecordsNeedingEmbedding({
        model,
        limit: limit + 1,
        maxFailures: this.#o.maxFailures,
      });
      this.#pending = Math.min(pending, limit);
      this.#pendingCapped = pending > limit;
    }
    if (this.#pendingCapped) return;
    // Everything lacking an embedding, given-up records included, minus the pending ones.
    const all = await this.#o.storage.countRecordsNeedingEmbedding({
      model,
      limit: limit + 1,
      maxFailures: Number.MAX_SAFE_INTEGER,
    });
    this.#failed = Math.max(0, Math.min(all, limit) - this.#pending);
  }
}
