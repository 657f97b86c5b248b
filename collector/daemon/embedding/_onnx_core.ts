/**
 * The `onnx` backend's inference: a sentence-transformer exported to ONNX (`model.onnx`) with
 * its Hugging Face `tokenizer.json`, run by onnxruntime-node, mean-pooled over the attention
 * mask and L2-normalised (what sentence-transformers does for all-MiniLM-L6-v2).
 *
 * This module loads native code, so the collector never imports it: it runs in the onnx child
 * process (`onnx_child.ts`), which holds the FFI permission for onnxruntime's folder alone.
 *
 * @module
 */
import * as ort from "onnxruntime-node";
import { loadTokenizer, meanPool, tokenizeBatch } from "./_onnx_tokenizer.ts";
import { isFiniteVector, l2NormalizeInPlace } from "@kiro-learn/core/search";

/** A loaded ONNX sentence encoder. */
export interface OnnxModel {
  /** Output size. */
  dim: number;
  /** Most tokens per text (longer texts are truncated, keeping the final special token). */
  maxTokens: number;
  /** Normalised embeddings, one per text. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Releases the session. */
  close(): Promise<void>;
}

/** Texts per `session.run` (sorted by length first, so padding stays small). */
const RUN_BATCH = 16;

function intTensor(
  type: "int64" | "int32",
  values: number[],
  dims: number[],
): ort.Tensor {
  return type === "int64"
    ? new ort.Tensor("int64", BigInt64Array.from(values, (v) => BigInt(v)), dims)
    : new ort.Tensor("int32", Int32Array.from(values), dims);
}

/**
 * Loads `model.onnx` and `tokenizer.json` from `dir` and probes the output size. Throws with
 * the reason (missing file, unparsable tokenizer, unsupported inputs or outputs).
 */
export async function loadOnnxModel(
  dir: string,
  options: { threads?: number } = {},
): Promise<OnnxModel> {
  const { tokenizer, maxTokens, padId } = loadTokenizer(dir);
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(`${dir}/model.onnx`, {
      intraOpNumThreads: options.threads ?? 2,
      interOpNumThreads: 1,
      graphOptimizationLevel: "all",
    });
  } catch (error) {
    throw new Error(`${dir}/model.onnx cannot be loaded: ${(error as Error).message}`);
  }
  const inputTypes = new Map<string, "int64" | "int32">();
  for (const meta of session.inputMetadata) {
    const type = meta.isTensor && meta.type === "int32" ? "int32" : "int64";
    if (!["input_ids", "attention_mask", "token_type_ids"].includes(meta.name)) {
      await session.release();
      throw new Error(
        `model input "${meta.name}" is not supported (expected input_ids, attention_mask, ` +
          `token_type_ids): export the model with sentence-transformers' ONNX export`,
      );
    }
    inputTypes.set(meta.name, type);
  }
  if (!inputTypes.has("input_ids")) {
    await session.release();
    throw new Error("model has no input_ids input");
  }
  // A ready-pooled output wins; otherwise the token states are mean-pooled here.
  const pooledName = session.outputNames.find((n) => n === "sentence_embedding");
  const tokenName =
    session.outputNames.find((n) => n === "last_hidden_state" || n === "token_embeddings") ??
      session.outputNames[0];

  async function run(texts: string[]): Promise<Float32Array[]> {
    const b = tokenizeBatch(tokenizer, texts, { maxTokens, padId });
    const dims = [b.batch, b.seq];
    const feeds: Record<string, ort.Tensor> = {};
    const add = (name: string, values: number[]) => {
      const type = inputTypes.get(name);
      if (type) feeds[name] = intTensor(type, values, dims);
    };
    add("input_ids", b.ids);
    add("attention_mask", b.mask);
    add("token_type_ids", b.types);
    const outputs = await session.run(feeds);
    let vectors: Float32Array[];
    const pooled = pooledName ? outputs[pooledName] : undefined;
    if (pooled && pooled.dims.length === 2) {
      const dim = pooled.dims[1];
      const data = pooled.data as Float32Array;
      vectors = texts.map((_, i) => data.slice(i * dim, (i + 1) * dim));
    } else {
      const hidden = outputs[tokenName];
      if (!hidden || hidden.dims.length !== 3 || hidden.type !== "float32") {
        throw new Error(
          `model output "${tokenName}" is not float32 [batch, sequence, hidden] ` +
            `(got ${hidden?.type} [${hidden?.dims.join(", ")}])`,
        );
      }
      vectors = meanPool(hidden.data as Float32Array, b.mask, {
        batch: b.batch,
        seq: b.seq,
        dim: hidden.dims[2],
      });
    }
    for (const o of Object.values(outputs)) o.dispose();
    for (const v of vectors) {
      if (!isFiniteVector(v)) throw new Error("model returned a non-finite vector");
      l2NormalizeInPlace(v);
    }
    return vectors;
  }

  async function embed(texts: string[]): Promise<Float32Array[]> {
    // Similar lengths together, so each run pads little; results go back in input order.
    const order = texts.map((t, i) => ({ i, len: t.length })).sort((a, b) => a.len - b.len);
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += RUN_BATCH) {
      const group = order.slice(start, start + RUN_BATCH);
      const vectors = await run(group.map((g) => texts[g.i]));
      group.forEach((g, k) => out[g.i] = vectors[k]);
    }
    return out;
  }

  let probe: Float32Array[];
  try {
    probe = await run(["kiro-learn"]);
  } catch (error) {
    await session.release();
    throw error;
  }
  return {
    dim: probe[0].length,
    maxTokens,
    embed,
    close: () => session.release(),
  };
}
