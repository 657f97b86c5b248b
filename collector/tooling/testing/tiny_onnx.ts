/**
 * A tiny sentence-transformer-shaped ONNX model and a matching tokenizer, written by hand.
 *
 * No real model can be downloaded here, so the onnx backend's loading, pooling and normalisation
 * are tested against this: `input_ids`, `attention_mask` and `token_type_ids` in (int64
 * `[batch, seq]`), `last_hidden_state` out (float `[batch, seq, dim]`), computed as
 * `(word_embeddings[input_ids] + type_embeddings[token_type_ids]) · W`. The weights are seeded
 * pseudo-random numbers: fine for shapes and arithmetic, meaningless for similarity.
 *
 * The protobuf is encoded directly (varints and length-delimited fields of `onnx.proto3`), so no
 * ONNX tooling is needed.
 *
 * @module
 */

/** The tiny model's vocabulary: BERT special tokens first, then a handful of words. */
export const TINY_VOCAB: readonly string[] = [
  "[PAD]",
  "[UNK]",
  "[CLS]",
  "[SEP]",
  "the",
  "cache",
  "test",
  "fails",
  "parser",
  "date",
  "leap",
  "year",
  "build",
  "error",
  "fix",
  "retry",
];

// ---- protobuf writer -------------------------------------------------------------------------

class ProtoWriter {
  #bytes: number[] = [];

  varint(field: number, value: number): this {
    this.#key(field, 0);
    this.#rawVarint(value);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.#key(field, 2);
    this.#rawVarint(value.length);
    for (const b of value) this.#bytes.push(b);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, inner: ProtoWriter): this {
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }

  #key(field: number, wire: number): void {
    this.#rawVarint(field * 8 + wire);
  }

  #rawVarint(value: number): void {
    // Non-negative integers only (dims, enums, versions), which is all this model needs.
    let v = value;
    while (v >= 0x80) {
      this.#bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.#bytes.push(v);
  }
}

const FLOAT = 1;
const INT64 = 7;

function floatTensor(name: string, dims: number[], values: Float32Array): ProtoWriter {
  const t = new ProtoWriter();
  for (const d of dims) t.varint(1, d);
  t.varint(2, FLOAT).string(8, name);
  const raw = new Uint8Array(values.length * 4);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return t.bytes(9, raw);
}

function valueInfo(name: string, elemType: number, dims: (number | string)[]): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of dims) {
    const dim = new ProtoWriter();
    if (typeof d === "number") dim.varint(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().varint(1, elemType).message(2, shape);
  return new ProtoWriter().string(1, name).message(2, new ProtoWriter().message(1, tensorType));
}

function node(opType: string, inputs: string[], outputs: string[], name: string): ProtoWriter {
  const n = new ProtoWriter();
  for (const i of inputs) n.string(1, i);
  for (const o of outputs) n.string(2, o);
  return n.string(3, name).string(4, opType);
}

/** A seeded generator (mulberry32), so the same seed always yields the same model. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomMatrix(rows: number, cols: number, next: () => number): Float32Array {
  return Float32Array.from({ length: rows * cols }, () => next() * 2 - 1);
}

/** Weights of a tiny model, so tests can compute the expected output themselves. */
export interface TinyModelWeights {
  /** Hidden size. */
  dim: number;
  /** `[vocab, dim]`, row-major. */
  wordEmbeddings: Float32Array;
  /** `[2, dim]`, row-major. */
  typeEmbeddings: Float32Array;
  /** `[dim, dim]`, row-major. */
  projection: Float32Array;
}

/** The weights {@linkcode tinyOnnxModel} uses for `dim` and `seed`. */
export function tinyModelWeights(options: { dim?: number; seed?: number } = {}): TinyModelWeights {
  const dim = options.dim ?? 8;
  const next = random(options.seed ?? 1);
  return {
    dim,
    wordEmbeddings: randomMatrix(TINY_VOCAB.length, dim, next),
    typeEmbeddings: randomMatrix(2, dim, next),
    projection: randomMatrix(dim, dim, next),
  };
}

/** Encodes the tiny model as ONNX protobuf bytes (IR 8, opset 13). */
export function tinyOnnxModel(options: { dim?: number; seed?: number } = {}): Uint8Array {
  const w = tinyModelWeights(options);
  const graph = new ProtoWriter()
    .message(1, node("Gather", ["word_embeddings", "input_ids"], ["words"], "gather_words"))
    .message(1, node("Gather", ["type_embeddings", "token_type_ids"], ["types"], "gather_types"))
    .message(1, node("Add", ["words", "types"], ["summed"], "add"))
    .message(1, node("MatMul", ["summed", "projection"], ["last_hidden_state"], "project"))
    .string(2, "tiny_sentence_encoder")
    .message(5, floatTensor("word_embeddings", [TINY_VOCAB.length, w.dim], w.wordEmbeddings))
    .message(5, floatTensor("type_embeddings", [2, w.dim], w.typeEmbeddings))
    .message(5, floatTensor("projection", [w.dim, w.dim], w.projection))
    .message(11, valueInfo("input_ids", INT64, ["batch", "sequence"]))
    // Present, as in real BERT exports, but unused: padding positions then carry non-zero
    // hidden states, so a pooling that ignored the mask would be caught by the tests.
    .message(11, valueInfo("attention_mask", INT64, ["batch", "sequence"]))
    .message(11, valueInfo("token_type_ids", INT64, ["batch", "sequence"]))
    .message(12, valueInfo("last_hidden_state", FLOAT, ["batch", "sequence", w.dim]));
  return new ProtoWriter()
    .varint(1, 8)
    .string(2, "kiro-learn-tests")
    .message(7, graph)
    .message(8, new ProtoWriter().string(1, "").varint(2, 13))
    .finish();
}

/**
 * A BERT-style `tokenizer.json` over {@linkcode TINY_VOCAB}: lower-casing normaliser, whitespace
 * and punctuation pre-tokeniser, WordPiece model, `[CLS] … [SEP]` post-processor.
 */
export function tinyTokenizerJson(): Record<string, unknown> {
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3].map((id) => special(id, TINY_VOCAB[id])),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY_VOCAB.map((t, i) => [t, i])),
    },
  };
}

/** Writes `model.onnx` and `tokenizer.json` of the tiny model into `dir` (created if needed). */
export async function writeTinyModel(
  dir: string,
  options: { dim?: number; seed?: number } = {},
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeFile(`${dir}/model.onnx`, tinyOnnxModel(options));
  await Deno.writeTextFile(`${dir}/tokenizer.json`, JSON.stringify(tinyTokenizerJson()));
}
