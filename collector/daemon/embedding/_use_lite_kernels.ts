/**
 * What the use-lite Worker changes in TF.js once its model is loaded (the one source file it
 * imports, so its read permission stays one file): {@linkcode releaseWeightData}, and a faster
 * `BatchMatMul` for the WASM backend ({@linkcode installFastBatchMatMul}).
 *
 * The backend's own kernel sends only unbatched, untransposed products to XNNPACK; everything
 * else (every attention product of Universal Sentence Encoder lite: `[batch × heads, L, d]`
 * with `Q·Kᵀ` transposed) runs in a scalar loop about ten times slower per multiply. Profiled
 * on dev-set records, those attention products were half of the model's time. This kernel cuts
 * a batched product into one XNNPACK product per batch entry, transposing `B` in JS first when
 * asked (a `d × L` copy, cheap next to the multiply), and hands every other case to the
 * original kernel. The arithmetic is the same matrix product; only the summation order inside
 * XNNPACK differs (float rounding, ~1e-6).
 *
 * @module
 */
import * as tfModule from "@energetic-ai/core";

/** A tensor as kernels see it. */
interface TensorInfo {
  dataId: unknown;
  shape: number[];
  dtype: string;
}

/** The parts of the WASM backend this kernel touches. */
interface WasmBackend {
  makeOutput(shape: number[], dtype: "float32"): TensorInfo;
  disposeData(dataId: unknown): boolean;
  typedArrayFromHeap(info: TensorInfo): Float32Array;
}

interface KernelArgs {
  inputs: { a: TensorInfo; b: TensorInfo };
  backend: WasmBackend;
  attrs: { transposeA: boolean; transposeB: boolean };
}

interface KernelConfig {
  kernelName: string;
  backendName: string;
  setupFunc?: unknown;
  kernelFunc: (args: KernelArgs) => TensorInfo;
  fast?: boolean;
}

/**
 * The kernel registry of the TF.js build the package bundles: its typings point at
 * `@tensorflow/tfjs-core`, which is bundled rather than installed, so they do not resolve.
 */
const tf = tfModule as unknown as {
  getKernel(name: string, backend: string): KernelConfig | undefined;
  registerKernel(config: KernelConfig): void;
  unregisterKernel(name: string, backend: string): void;
};

const BATCH_MAT_MUL = "BatchMatMul";

function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/**
 * Replaces the WASM backend's `BatchMatMul` with the batched-through-XNNPACK version; call once
 * after `tf.ready()`. Idempotent. Returns false (and changes nothing) when the backend has no
 * such kernel, e.g. another backend is active.
 */
export function installFastBatchMatMul(): boolean {
  const original = tf.getKernel(BATCH_MAT_MUL, "wasm");
  if (!original) return false;
  if (original.fast) return true;
  const slow = original.kernelFunc;
  const kernelFunc = (args: KernelArgs): TensorInfo => {
    const { a, b } = args.inputs;
    const { transposeA, transposeB } = args.attrs;
    const rank = a.shape.length;
    const batchA = size(a.shape.slice(0, -2));
    const batchB = size(b.shape.slice(0, -2));
    if (
      transposeA || a.dtype !== "float32" || b.dtype !== "float32" ||
      b.shape.length !== rank || (batchA !== batchB && batchB !== 1) ||
      (batchA === 1 && !transposeB)
    ) {
      return slow(args);
    }
    const backend = args.backend;
    const m = a.shape[rank - 2];
    const k = a.shape[rank - 1];
    const n = transposeB ? b.shape[rank - 2] : b.shape[rank - 1];
    const out = backend.makeOutput([...a.shape.slice(0, -2), m, n], "float32");
    const aPart = backend.makeOutput([1, m, k], "float32");
    try {
      for (let i = 0; i < batchA; i++) {
        // A fresh B every time: XNNPACK caches its packed copy of B under the tensor's id.
        const bPart = backend.makeOutput([1, k, n], "float32");
        // Views are taken after every allocation: a growing heap detaches older ones.
        backend.typedArrayFromHeap(aPart).set(
          backend.typedArrayFromHeap(a).subarray(i * m * k, (i + 1) * m * k),
        );
        const j = batchB === 1 ? 0 : i;
        const bAll = backend.typedArrayFromHeap(b);
        const bDst = backend.typedArrayFromHeap(bPart);
        if (transposeB) {
          // b holds [n, k]; XNNPACK wants [k, n].
          const base = j * n * k;
          for (let r = 0; r < n; r++) {
            for (let c = 0; c < k; c++) bDst[c * n + r] = bAll[base + r * k + c];
          }
        } else bDst.set(bAll.subarray(j * k * n, (j + 1) * k * n));
        const part = slow({
          inputs: { a: aPart, b: bPart },
          backend,
          attrs: { transposeA: false, transposeB: false },
        });
        backend.typedArrayFromHeap(out).set(backend.typedArrayFromHeap(part), i * m * n);
        backend.disposeData(part.dataId);
        backend.disposeData(bPart.dataId);
      }
    } finally {
      backend.disposeData(aPart.dataId);
    }
    return out;
  };
  tf.unregisterKernel(BATCH_MAT_MUL, "wasm");
  // The original's setup already ran when the backend started; it is not run again.
  tf.registerKernel({ ...original, setupFunc: undefined, kernelFunc, fast: true });
  return true;
}

/** The part of a loaded use-lite model this module touches (TF.js's GraphModel keeps it). */
export interface LoadedUseLite {
  /** The graph model. */
  model: { artifacts?: { weightData?: unknown } };
}

/**
 * Drops the model's raw weight bytes (one 26.6 MiB buffer of the packaged shards, joined), which
 * TF.js's GraphModel keeps in `artifacts` after decoding them into tensors: the backend holds its
 * own copy of every weight (in WASM memory), and `artifacts.weightData` is read again only by
 * `GraphModel.save()`, which the collector never calls. The buffers are detached, not just let
 * go: that frees their bytes now, where an idle Worker would otherwise keep them until its next
 * garbage collection. True when there was something to drop.
 */
export function releaseWeightData(loaded: LoadedUseLite): boolean {
  const artifacts = loaded.model.artifacts;
  if (artifacts?.weightData === undefined) return false;
  const data = artifacts.weightData;
  artifacts.weightData = undefined;
  for (const buffer of Array.isArray(data) ? data : [data]) {
    if (buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer(0);
  }
  return true;
}
