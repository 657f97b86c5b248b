/**
 * The term space the product ships: one per namespace, learned from that namespace's own memory
 * records, and the reranker column it gives (`term_space` in `rerank.ts`).
 *
 * The daemon (`collector/daemon/term_spaces`) and the reranker's trainer
 * (`collector/tooling/quality/train_rerank.ts`) both build spaces with
 * {@linkcode trainRecordTermSpace} over {@linkcode recordSpaceDoc}s and score with
 * {@linkcode recordSpaceColumn}, so the weights fit exactly what the collector computes.
 *
 * Which variant and why (`collector/tooling/quality/README.md`, "Removed experiments": the
 * semantic one): classic LSA at 128 dimensions over title + summary/facts + changed paths; the
 * prompt is folded in as a whole, a candidate by its title alone (titles are what prompts
 * resemble), and the column is the cosine divided by the best candidate's. That one column won on the held-out repository in both
 * directions; 256 dimensions, word (PPMI) spaces and the cross layout did not do better.
 *
 * @module
 */
import {
  embedTerms,
  type TermSpace,
  type TermSpaceBuilder,
  termSpaceBuilder,
  termSpaceColumn,
  type TermSpaceDoc,
  trainTermSpace,
} from "./term_space.ts";

/** Dimensions of the shipped space. */
export const RECORD_SPACE_DIMS = 128;

/**
 * Version of the stored space: its byte format and how it is trained (dimensions, what a
 * document is). A stored space of another version is retrained, never read.
 */
export const RECORD_SPACE_VERSION = 1;

/** The parts of a record a space learns from. */
export interface RecordSpaceSource {
  /** Title. */
  title: string;
  /** Summary. */
  summary: string;
  /** Facts (read with the summary). */
  facts: readonly string[];
  /** Changed paths. */
  files_touched: readonly string[];
}

/** A record as a term-space training document: title, summary with its facts, paths. */
export function recordSpaceDoc(record: RecordSpaceSource): TermSpaceDoc {
  return {
    title: record.title,
    summary: `${record.summary} ${record.facts.join(" ")}`,
    files: record.files_touched,
  };
}

/** The shipped space's builder: documents added a page at a time, then trained. */
export function recordTermSpaceBuilder(): TermSpaceBuilder {
  return termSpaceBuilder({ dims: RECORD_SPACE_DIMS });
}

/** Trains the shipped space over a namespace's records (deterministic: a fixed seed). */
export function trainRecordTermSpace(docs: readonly TermSpaceDoc[]): TermSpace {
  return trainTermSpace(docs, { dims: RECORD_SPACE_DIMS });
}

/**
 * The reranker's `term_space` column for a prompt's candidates: each candidate folded in by its
 * title, cosine with the prompt, divided by the best candidate's (0 for a candidate none of
 * whose title words the space knows).
 */
export function recordSpaceColumn(
  query: string,
  options: { space: TermSpace; records: readonly RecordSpaceSource[] },
): number[] {
  const records = options.records.map((r) =>
    embedTerms(options.space, { title: r.title, summary: "", files: [] }, { side: "title" })
  );
  return termSpaceColumn(query, { space: options.space, records });
}

const MAGIC = "KLTS";

// Float32Array reads in the platform's byte order; the stored floats are little-endian.
const LITTLE_ENDIAN = new Uint8Array(new Float32Array([1]).buffer)[3] === 0x3f;

/**
 * A space as bytes for storage: `KLTS`, a little-endian u32 header length, a JSON header
 * (version, dims, the terms in column order), padding to 4 bytes, then float32 little-endian
 * idf, singular values and term vectors.
 */
export function encodeTermSpace(space: TermSpace): Uint8Array {
  if (space.cross) throw new Error("encodeTermSpace: the cross layout is not stored");
  const terms = [...space.columns].sort((a, b) => a[1] - b[1]).map(([t]) => t);
  const header = new TextEncoder().encode(JSON.stringify({
    version: RECORD_SPACE_VERSION,
    dims: space.dims,
    terms,
  }));
  const start = Math.ceil((8 + header.length) / 4) * 4;
  const floats = space.idf.length + space.singular.length + space.vectors.length;
  const bytes = new Uint8Array(start + floats * 4);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(4, header.length, true);
  bytes.set(header, 8);
  let at = start;
  for (const array of [space.idf, space.singular, space.vectors]) {
    for (let i = 0; i < array.length; i++, at += 4) view.setFloat32(at, array[i], true);
  }
  return bytes;
}

/**
 * Reads {@linkcode encodeTermSpace}'s bytes. Throws on bytes that are not a stored space or are
 * truncated; returns null for a space of another {@linkcode RECORD_SPACE_VERSION} (retrain it).
 * When `bytes` is a whole buffer, the space's arrays are views on it (do not reuse the bytes).
 */
export function decodeTermSpace(bytes: Uint8Array): TermSpace | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || new TextDecoder().decode(bytes.subarray(0, 4)) !== MAGIC) {
    throw new Error("stored term space: not a term space (bad magic); it will be retrained");
  }
  const headerLength = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as {
    version: number;
    dims: number;
    terms: string[];
  };
  if (header.version !== RECORD_SPACE_VERSION) return null;
  const n = header.terms.length, dims = header.dims;
  const start = Math.ceil((8 + headerLength) / 4) * 4;
  if (bytes.length !== start + (n + dims + n * dims) * 4) {
    throw new Error(
      `stored term space: ${bytes.length} bytes, expected ${
        start + (n + dims + n * dims) * 4
      } for ${n} terms × ${dims} dims; it will be retrained`,
    );
  }
  let at = start;
  // Bytes that own their whole buffer (a trained space from the Worker, a row from SQLite) are
  // read in place: a copy would leave the collector with ~5 MB of garbage per namespace, resident
  // until its next collection. A slice of a larger buffer is copied (a view would pin all of it).
  const inPlace = LITTLE_ENDIAN && bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength;
  const read = (length: number) => {
    if (inPlace) {
      const out = new Float32Array(bytes.buffer, at, length);
      at += length * 4;
      return out;
    }
    const out = new Float32Array(length);
    for (let i = 0; i < length; i++, at += 4) out[i] = view.getFloat32(at, true);
    return out;
  };
  const idf = read(n), singular = read(dims), vectors = read(n * dims);
  const columns = new Map(header.terms.map((t, i) => [t, i]));
  return { dims, cross: false, columns, idf, vectors, singular };
}
