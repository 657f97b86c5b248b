/**
 * Worker side of the use-lite backend: Universal Sentence Encoder lite (TF.js, WASM) from the
 * packaged model, answering `{id, texts}` messages with `{id, vectors}` or `{id, error}`.
 *
 * The worker is started with read access to the two packages' `dist` folders only (no net,
 * env, run, write or ffi), so the model can never fetch anything: the packaged `modelSource`
 * reads `model.json`, the weight shards and `vocab.json` from disk.
 *
 * @module
 */
import { setPriority } from "node:os";
import {
  installFastBatchMatMul,
  type LoadedUseLite,
  loadPooledUseLite,
  releaseWeightData,
  wasmHeapBytes,
} from "./_use_lite_kernels.ts";

/** A request from the main thread. */
export interface UseLiteRequest {
  /** Correlates the reply. */
  id: number;
  /**
   * `embed` (the default) answers vectors; `count` answers each text's token count; `nice`
   * lowers this Worker's thread to `nice` (Linux's nice is per thread) and answers no counts.
   */
  op?: "embed" | "count" | "nice";
  /** Texts to embed or count (empty for `nice`). */
  texts: string[];
  /** With `nice`: the nice value (0–19). */
  nice?: number;
}

/**
 * A reply to the main thread. `heap` is the model's WASM memory in bytes after the work (see
 * `wasmHeapBytes`): the embedder replaces an idle Worker whose heap grew past its size at load.
 */
export type UseLiteReply =
  | { type: "ready"; heap: number }
  | { type: "load_error"; error: string }
  | { type: "result"; id: number; vectors: Float32Array[]; heap: number }
  | { type: "counts"; id: number; counts: number[]; heap: number }
  | { type: "error"; id: number; error: string };

// deno-lint-ignore no-explicit-any
const scope = self as any as {
  postMessage(message: UseLiteReply, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<UseLiteRequest>) => void) | null;
};

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let model: Awaited<ReturnType<typeof loadPooledUseLite>>;
try {
  // Always the packaged files: the library's default source downloads from the network. The
  // last projection runs after pooling (same vectors up to float rounding, ~8% faster).
  model = await loadPooledUseLite();
  // The weights are in the backend now: their raw bytes would only hold 27 MB for good.
  releaseWeightData(model as unknown as LoadedUseLite);
  // Attention products through XNNPACK: about half the model's time on record-length texts.
  installFastBatchMatMul();
  scope.postMessage({ type: "ready", heap: wasmHeapBytes() });
} catch (error) {
  scope.postMessage({ type: "load_error", error: message(error) });
  throw error;
}

// One request at a time: TF.js work is synchronous inside, and ordered replies keep the
// main thread's bookkeeping trivial.
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (event) => {
  const { id, op, texts } = event.data;
  queue = queue.then(async () => {
    try {
      if (op === "nice") {
        setPriority(event.data.nice ?? 0);
        return scope.postMessage({ type: "counts", id, counts: [], heap: wasmHeapBytes() });
      }
      if (op === "count") {
        // The model's own tokeniser: what it pads a call's texts to is the most of these.
        const counts = texts.map((t) => model.tokenizer.encode(t).length);
        return scope.postMessage({ type: "counts", id, counts, heap: wasmHeapBytes() });
      }
      const raw = await model.embed(texts);
      const vectors = raw.map((v) => Float32Array.from(v));
      const heap = wasmHeapBytes();
      scope.postMessage({ type: "result", id, vectors, heap }, vectors.map((v) => v.buffer));
    } catch (error) {
      scope.postMessage({ type: "error", id, error: message(error) });
    }
  });
};
