/**
 * What every embedding backend provides, what the collector reports about it, and the text a
 * record is embedded from.
 *
 * @module
 */
import type { MemoryRecord } from "@kiro-learn/core/schemas";

/** A loaded sentence encoder. Vectors are L2-normalised, `dim` long, one per input text. */
export interface Embedder {
  /** Identifies the model (stored with every embedding), e.g. `use-lite@0.2.0`. */
  readonly model_id: string;
  /** Vector length. */
  readonly dim: number;
  /**
   * Calls' worth of texts it embeds at once (parallel Workers; default 1): a caller that cuts
   * work into small calls so that others wait little can make them this many times larger.
   */
  readonly lanes?: number;
  /** Embeds texts; resolves with one normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * How long each text is for the model (its tokens), for backends that pad every text of a call
   * to the longest one: background work groups texts of similar token counts with it. Without
   * it, texts are grouped by characters, a poor proxy for tokens once inputs are cut to one
   * length (dev-set records at 200 chars padded to 1.19× their tokens in chunks of 4 ordered by
   * characters, 1.06× by tokens: a one-off measurement of stop 24, which no benchmark prints).
   */
  tokenCounts?(texts: string[]): Promise<number[]>;
  /**
   * A run of background calls is coming (the backfill): an embedder that can add capacity for a
   * while (use-lite's spare Worker) brings it up now. Only a hint; calls work either way.
   */
  expectBatches?(): void;
  /** Frees the worker or child process; idempotent. */
  close(): Promise<void>;
}

/** The configured backend (`embedding.backend`). */
export type EmbeddingBackendName = "use-lite" | "onnx" | "off";

/** Lifecycle of the embedder as status and the viewer show it. */
export type EmbedderState = "ready" | "loading" | "failed" | "off";

/** The embedder's status: never hidden, so lexical-only operation is always visible. */
export interface EmbedderStatus {
  /** Configured backend. */
  backend: EmbeddingBackendName;
  /** Model id when known (null while a model has never loaded, or when off). */
  model_id: string | null;
  /** `ready`: vectors are used; anything else: retrieval is lexical-only. */
  state: EmbedderState;
  /** Why it is not ready (load error, crash, missing model). */
  error?: string;
}

/** Raised when an embedding call exceeds its time bound. */
export class EmbedTimeoutError extends Error {
  /** Creates the error for a call bounded at `ms`. */
  constructor(ms: number) {
    super(`embedding timed out after ${ms} ms`);
    this.name = "EmbedTimeoutError";
  }
}

/**
 * Longest record embedding input, in UTF-16 code units: the title and the start of the summary.
 * The reference design embedded up to 10,000 chars; 300 chars (input version 2) retrieved better
 * than whole records on the synthetic set, because Universal Sentence Encoder lite averages over
 * every token, so trailing detail dilutes the gist. The model's time is linear in tokens, so the
 * cut is the backfill's speed: dev-set commit records (`../shared/quality/fixes-dev`) average 56
 * tokens at 200 chars, 38 at 120 and 32 at 100. On the real set vector-only retrieval is no worse
 * for the shorter input (`embedding_cut_experiment.ts`, in commit 1d1f6bf, 1,215 records
 * and 300 real queries per repository, recall@5/MRR@10: openvswitch 0.222/0.168 at 200,
 * 0.224/0.185 at 120, 0.228/0.173 at 100; ovn 0.142/0.096, 0.160/0.113, 0.170/0.119). The
 * synthetic regression set prefers longer input (hybrid's lead over lexical +0.09 at 200, +0.07
 * at 120, +0.03 at 100), so 120 takes the real set's speed-up while hybrid still leads there.
 */
export const MAX_EMBEDDING_INPUT = 120;

/**
 * Longest query embedding input: a long pasted prompt states its request up front, and a query
 * is one text (its time is the hook's latency, not a backfill's throughput), so it keeps the
 * 300 chars that input version 2 used for queries and records alike.
 */
export const MAX_QUERY_EMBEDDING_INPUT = 300;

/**
 * Version of {@linkcode composeEmbeddingInput}'s output. It is part of the model id stored with
 * every embedding ({@linkcode embeddingModelId}), so changing what is embedded makes the backfill
 * re-embed every stored record, exactly as a change of model does. Version 1 (ids without a
 * suffix) was title, summary, facts and concepts in newline-separated sections up to 10,000 chars;
 * version 2 the same on one line, up to 300 chars; version 3 up to 200 chars; version 4 up to
 * {@linkcode MAX_EMBEDDING_INPUT}.
 */
export const EMBEDDING_INPUT_VERSION = 4;

/** The model id stored with an embedding: the model's own id plus the input version. */
export function embeddingModelId(modelId: string): string {
  return `${modelId}+in${EMBEDDING_INPUT_VERSION}`;
}

/**
 * The same embedder, identified by {@linkcode embeddingModelId}: what the collector stores and
 * indexes, so vectors of an older input version count as another model's.
 */
export function withInputVersion(embedder: Embedder): Embedder {
  return {
    model_id: embeddingModelId(embedder.model_id),
    dim: embedder.dim,
    // Read at each use: an embedder's lanes can change (use-lite's spare Worker comes and goes).
    get lanes() {
      return embedder.lanes;
    },
    embed: (texts) => embedder.embed(texts),
    tokenCounts: embedder.tokenCounts && ((texts) => embedder.tokenCounts!(texts)),
    expectBatches: embedder.expectBatches && (() => embedder.expectBatches!()),
    close: () => embedder.close(),
  };
}

/**
 * The text a record is embedded from — the one definition, used for stored records, the backfill
 * and the quality evaluation alike: title, summary, facts, then concepts joined by ", ", each
 * ending as a sentence, on one line with runs of whitespace collapsed to one space, cut at the
 * last word boundary within {@linkcode MAX_EMBEDDING_INPUT} chars (so in practice the title and
 * the start of the summary). `files_touched` and `observation_type` are excluded: paths and type
 * labels would pull unrelated records together. Deterministic: the same record always gives the
 * same text. One line, because Universal Sentence Encoder lite's tokeniser marks word starts at
 * spaces only: a newline becomes an unknown token glued to the next word.
 */
export function composeEmbeddingInput(
  record: Pick<MemoryRecord, "title" | "summary" | "facts" | "concepts">,
): string {
  return cutAtWord(embeddingText(record), MAX_EMBEDDING_INPUT);
}

/**
 * {@linkcode composeEmbeddingInput} before the cut: the whole text, for an experiment that tries
 * other cuts (`cutAtWord`).
 */
export function embeddingText(
  record: Pick<MemoryRecord, "title" | "summary" | "facts" | "concepts">,
): string {
  const concepts = record.concepts.map(collapseWhitespace).filter((c) => c !== "").join(", ");
  return [record.title, record.summary, ...record.facts, concepts]
    .map(collapseWhitespace)
    .filter((s) => s !== "")
    .map(asSentence)
    .join(" ");
}

/** Runs of whitespace (newlines and tabs included) become one space; ends are trimmed. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

function asSentence(text: string): string {
  return /[.!?:;…]["')\]]*$/u.test(text) ? text : `${text}.`;
}

/**
 * The text a query is embedded as: whitespace collapsed and cut at a word within
 * {@linkcode MAX_QUERY_EMBEDDING_INPUT} (a long pasted prompt states its request up front, and
 * the model's time grows with the text).
 */
export function queryEmbeddingInput(text: string): string {
  return cutAtWord(text.replace(/\s+/g, " ").trim(), MAX_QUERY_EMBEDDING_INPUT);
}

/** Cuts `text` to at most `max` characters at the last word boundary. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = truncateText(text, max);
  // A cut that falls exactly before a space keeps the whole last word.
  if (text[cut.length] === " ") return cut.trimEnd();
  const space = cut.lastIndexOf(" ");
  return space > 0 ? cut.slice(0, space).trimEnd() : cut;
}

/** Cuts `text` to at most `max` code units without splitting a surrogate pair. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  // A high surrogate as the last kept unit would leave half a character behind.
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return text.slice(0, end);
}

/**
 * Races `promise` against a timer; rejects with {@linkcode EmbedTimeoutError}. The underlying
 * work is not cancelled (model calls cannot be), so callers must tolerate a late result.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EmbedTimeoutError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
