/**
 * The pure-JS halves of the `onnx` backend: tokenising with Hugging Face `tokenizer.json`
 * files through `@huggingface/tokenizers` (no native code; read access to the model folder
 * only), truncating and padding into one batch, and mean pooling the model's token states.
 * Kept apart from `onnx_core.ts` so the CLI can validate a tokenizer without loading
 * onnxruntime's native addon.
 *
 * @module
 */
import { Tokenizer } from "@huggingface/tokenizers";

/** A tokenised, padded batch. */
export interface TokenBatch {
  /** Texts in the batch. */
  batch: number;
  /** Padded length. */
  seq: number;
  /** `[batch, seq]` token ids. */
  ids: number[];
  /** `[batch, seq]` 1 for real tokens, 0 for padding. */
  mask: number[];
  /** `[batch, seq]` segment ids (all 0 for single texts). */
  types: number[];
}

/** Default token cap when the model folder says nothing (sentence-transformers' usual 256). */
const DEFAULT_MAX_TOKENS = 256;

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(Deno.readTextFileSync(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Parses `tokenizer.json` (plus the optional `tokenizer_config.json`) from `dir`. */
export function loadTokenizer(
  dir: string,
): { tokenizer: Tokenizer; maxTokens: number; padId: number } {
  const json = readJson(`${dir}/tokenizer.json`);
  if (!json) throw new Error(`${dir}/tokenizer.json is missing`);
  const config = readJson(`${dir}/tokenizer_config.json`) ?? {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json, config);
  } catch (error) {
    throw new Error(`${dir}/tokenizer.json cannot be used: ${(error as Error).message}`);
  }
  const sbert = readJson(`${dir}/sentence_bert_config.json`);
  const truncation = json.truncation as { max_length?: unknown } | null | undefined;
  const candidates = [
    sbert?.max_seq_length,
    truncation?.max_length,
    config.model_max_length,
  ].filter((n): n is number => typeof n === "number" && Number.isInteger(n) && n >= 2);
  const maxTokens = Math.min(candidates[0] ?? DEFAULT_MAX_TOKENS, 512);
  const padding = json.padding as { pad_id?: unknown } | null | undefined;
  const padId = typeof padding?.pad_id === "number"
    ? padding.pad_id
    : tokenizer.token_to_id("[PAD]") ?? tokenizer.token_to_id("<pad>") ?? 0;
  return { tokenizer, maxTokens, padId };
}

/**
 * Tokenises texts into one padded batch. A text longer than `maxTokens` keeps its first
 * `maxTokens - 1` tokens and its last one (the `[SEP]`-like end token the post-processor adds).
 */
export function tokenizeBatch(
  tokenizer: Pick<Tokenizer, "encode">,
  texts: string[],
  options: { maxTokens: number; padId: number },
): TokenBatch {
  const encoded = texts.map((text) => {
    const e = tokenizer.encode(text, { return_token_type_ids: true });
    let ids = e.ids;
    let types = e.token_type_ids ?? ids.map(() => 0);
    if (ids.length > options.maxTokens) {
      const keep = options.maxTokens - 1;
      ids = [...ids.slice(0, keep), ids[ids.length - 1]];
      types = [...types.slice(0, keep), types[types.length - 1]];
    }
    return { ids, types };
  });
  // A text that tokenises to nothing still needs one position for the model to run.
  const seq = Math.max(1, ...encoded.map((e) => e.ids.length));
  const out: TokenBatch = { batch: texts.length, seq, ids: [], mask: [], types: [] };
  for (const e of encoded) {
    for (let i = 0; i < seq; i++) {
      const real = i < e.ids.length;
      out.ids.push(real ? e.ids[i] : options.padId);
      out.mask.push(real ? 1 : 0);
      out.types.push(real ? e.types[i] : 0);
    }
  }
  return out;
}

/**
 * Mean of the hidden states of real tokens (mask 1), per text: `hidden` is `[batch, seq, dim]`
 * row-major, `mask` is `[batch, seq]`. A text with no real token pools to zeros.
 */
export function meanPool(
  hidden: ArrayLike<number>,
  mask: ArrayLike<number>,
  shape: { batch: number; seq: number; dim: number },
): Float32Array[] {
  const { batch, seq, dim } = shape;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const sum = new Float64Array(dim);
    let count = 0;
    for (let s = 0; s < seq; s++) {
      if (!mask[b * seq + s]) continue;
      count++;
      const base = (b * seq + s) * dim;
      for (let d = 0; d < dim; d++) sum[d] += hidden[base + d];
    }
    const v = new Float32Array(dim);
    if (count > 0) { for (let d = 0; d < dim; d++) v[d] = sum[d] / count; }
    out.push(v);
  }
  return out;
}
