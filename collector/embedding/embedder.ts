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
  /** Embeds texts; resolves with one normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
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

/** Longest embedding input, in UTF-16 code units (the spec's 10,000 chars). */
export const MAX_EMBEDDING_INPUT = 10_000;

/**
 * The text a record is embedded from: title, blank line, summary, blank line, facts one per
 * line, blank line, concepts joined by ", " (empty sections are left out), capped at 10,000
 * characters. `files_touched` and `observation_type` are excluded: paths and type labels would
 * pull unrelated records together. Deterministic: the same record always gives the same text.
 */
export function composeEmbeddingInput(
  record: Pick<MemoryRecord, "title" | "summary" | "facts" | "concepts">,
): string {
  const sections = [
    record.title.trim(),
    record.summary.trim(),
    record.facts.map((f) => f.trim()).filter((f) => f !== "").join("\n"),
    record.concepts.map((c) => c.trim()).filter((c) => c !== "").join(", "),
  ].filter((s) => s !== "");
  return truncateText(sections.join("\n\n"), MAX_EMBEDDING_INPUT);
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
