/**
 * The `onnx` backend, collector side: starts the onnx child process (`onnx_child.ts`) and talks
 * to it over stdin/stdout.
 *
 * Why a child process: onnxruntime-node is a native addon, so loading it needs FFI permission.
 * A Worker cannot hold a permission its parent lacks, and the collector itself must not gain
 * `--allow-ffi`. So the collector runs `deno` (and only that extra command: `--allow-run=<the
 * deno binary>`, granted only when `embedding.backend` is `onnx`) with the child's own narrow
 * flags: read of the model folder, FFI limited to onnxruntime-node's native folder, nothing else.
 *
 * @module
 */
import { type Embedder, withTimeout } from "./embedder.ts";
import type { OnnxReply } from "./onnx_child.ts";
import { ONNX_CHILD, onnxRuntimeBinDir, WORKSPACE_CONFIG } from "../permissions/mod.ts";
import { DENO_ENV, LOCAL_MODULES_ONLY } from "@kiro-learn/core/launch";
import { isFiniteVector } from "@kiro-learn/core/search";

/** Options for {@linkcode createOnnxEmbedder}. */
export interface OnnxOptions {
  /** Folder holding `model.onnx` and `tokenizer.json`. */
  modelDir: string;
  /** Id stored with the embeddings (see `installedModel`). */
  modelId: string;
  /** Longest wait for the model to load (default 60 s). */
  loadTimeoutMs?: number;
  /** Called once if the child dies after loading. */
  onDead?: (error: Error) => void;
  /** HOME for the child, so Deno finds its cache (default: the caller's, when readable). */
  home?: string;
}

/** The `deno` arguments of the onnx child for `modelDir`: its whole permission set. */
export function onnxChildArgs(modelDir: string): string[] {
  return [
    "run",
    "--config",
    WORKSPACE_CONFIG,
    "--no-prompt",
    ...LOCAL_MODULES_ONLY,
    `--allow-read=${modelDir}`,
    `--allow-ffi=${onnxRuntimeBinDir()}`,
    ONNX_CHILD,
    modelDir,
  ];
}

function readableHome(): string | undefined {
  try {
    return Deno.env.get("HOME");
  } catch {
    return undefined;
  }
}

/** Starts the child and resolves once the model is loaded; rejects with the load error. */
export async function createOnnxEmbedder(
  options: OnnxOptions,
): Promise<Embedder & { readonly pid: number }> {
  const home = options.home ?? readableHome();
  const child = new Deno.Command(Deno.execPath(), {
    args: onnxChildArgs(options.modelDir),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // Nothing of the collector's environment leaks into native code. onnxruntime's telemetry
    // is off: it reports nowhere offline, and it leaves a `/tmp/mat-debug-<pid>.log` per start.
    clearEnv: true,
    env: {
      ...DENO_ENV,
      NO_COLOR: "1",
      ORT_DISABLE_TELEMETRY: "1",
      ...(home ? { HOME: home } : {}),
    },
  }).spawn();
  const stdin = child.stdin.getWriter();
  const encoder = new TextEncoder();

  let stderrTail = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderrTail = (stderrTail + chunk).slice(-2000);
    }
  })().catch(() => {});

  const pending = new Map<number, PromiseWithResolvers<Float32Array[]>>();
  const ready = Promise.withResolvers<{ dim: number }>();
  let nextId = 1;
  let dead: Error | null = null;
  let closed = false;
  let dim = 0;

  const die = (error: Error) => {
    if (dead) return;
    dead = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    ready.reject(error);
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    if (!closed) options.onDead?.(error);
  };

  const onReply = (reply: OnnxReply) => {
    if (reply.type === "ready") return ready.resolve({ dim: reply.dim });
    if (reply.type === "load_error") {
      return die(new Error(`onnx model failed to load: ${reply.error}`));
    }
    const p = pending.get(reply.id);
    if (!p) return; // Its caller timed out and went away.
    pending.delete(reply.id);
    if (reply.type === "error") {
      return p.reject(new Error(`onnx embedding failed: ${reply.error}`));
    }
    p.resolve(reply.vectors.map((v) => Float32Array.from(v)));
  };

  (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          onReply(JSON.parse(line));
        } catch {
          // A stray line (a library printing to stdout) is not a reply.
        }
      }
    }
  })().catch(() => {});

  child.status.then(async (status) => {
    await stderrDone;
    const detail = stderrTail.trim().split("\n").slice(-5).join(" | ");
    die(new Error(`onnx child exited with code ${status.code}${detail ? `: ${detail}` : ""}`));
  });

  try {
    ({ dim } = await withTimeout(ready.promise, options.loadTimeoutMs ?? 60_000));
  } catch (error) {
    die(error instanceof Error ? error : new Error(String(error)));
    await child.status;
    throw dead ?? error;
  }

  return {
    model_id: options.modelId,
    dim,
    pid: child.pid,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      if (dead) throw dead;
      if (closed) throw new Error("onnx embedder is closed");
      const id = nextId++;
      const p = Promise.withResolvers<Float32Array[]>();
      pending.set(id, p);
      try {
        await stdin.write(encoder.encode(JSON.stringify({ id, texts }) + "\n"));
      } catch (error) {
        pending.delete(id);
        throw dead ?? error;
      }
      const vectors = await p.promise;
      if (vectors.length !== texts.length) {
        throw new Error(`onnx returned ${vectors.length} vectors for ${texts.length} texts`);
      }
      for (const v of vectors) {
        if (v.length !== dim) throw new Error(`onnx returned a ${v.length}-d vector, not ${dim}`);
        if (!isFiniteVector(v)) throw new Error("onnx returned a non-finite vector");
      }
      return vectors;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      try {
        await stdin.close();
      } catch {
        // The child is gone already.
      }
      // Closing stdin ends the child's loop; kill it if it does not go within 2 s.
      const timer = setTimeout(() => die(new Error("onnx embedder is closed")), 2000);
      await child.status;
      clearTimeout(timer);
      if (!dead) dead = new Error("onnx embedder is closed");
    },
  };
}
