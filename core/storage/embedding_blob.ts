/**
 * Embedding blobs: float32 little-endian, written with explicit endianness so a database file
 * moves between machines unchanged.
 *
 * @module
 */

/** Encodes a vector as a float32 little-endian blob (4 bytes per dimension). */
export function encodeEmbedding(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i], true);
  return bytes;
}

/** True when typed arrays use little-endian byte order on this machine. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * Decodes a float32 little-endian blob. A length that is not `dim * 4` bytes is corrupt data,
 * so it throws with the record id to look at rather than returning a wrong-sized vector.
 */
export function decodeEmbedding(
  blob: Uint8Array,
  options: { dim: number; recordId: string },
): Float32Array {
  if (blob.byteLength !== options.dim * 4) {
    throw new Error(
      `embedding of ${options.recordId} is ${blob.byteLength} bytes, expected ${
        options.dim * 4
      } (${options.dim} float32): re-embed it with the backfill`,
    );
  }
  const out = new Float32Array(options.dim);
  // On a little-endian machine (all the ones Deno ships for) the blob is the array's own bytes:
  // one copy instead of a DataView read per dimension (the vector index decodes its shortlist
  // of hundreds of blobs on every search).
  if (LITTLE_ENDIAN) {
    new Uint8Array(out.buffer).set(blob);
    return out;
  }
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  for (let i = 0; i < options.dim; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Frees the memory of a typed array that owns its whole buffer now rather than at the next
 * garbage collection, and returns true; a view that shares its buffer is left alone (false).
 * The view reads as empty afterwards. Why: loading 100k embeddings makes 200k short-lived 2 KB
 * buffers (SQLite's blob and its decoded copy) that V8 frees only after tens of MB of them have
 * piled up in malloc's heap, which then stays resident, fragmented (65 MiB at 100k records).
 */
export function freeNow(view: ArrayBufferView): boolean {
  const buffer = view.buffer;
  if (
    !(buffer instanceof ArrayBuffer) || buffer.detached || view.byteOffset !== 0 ||
    view.byteLength !== buffer.byteLength
  ) return false;
  buffer.transfer(0);
  return true;
}
