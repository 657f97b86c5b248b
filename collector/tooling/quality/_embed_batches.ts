/**
 * Embedding many texts for an experiment or a benchmark: in model calls of a few texts each, as
 * the collector's background work calls the model, so no call pads a long list to its longest
 * text.
 *
 * @module
 */

/** Texts per model call. */
export const EMBED_BATCH = 16;

/** `texts`' vectors in order, from calls of at most {@linkcode EMBED_BATCH} texts. */
export async function embedInBatches(
  embedder: { embed(texts: string[]): Promise<Float32Array[]> },
  texts: readonly string[],
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    out.push(...await embedder.embed(texts.slice(i, i + EMBED_BATCH)));
  }
  return out;
}
