/**
 * Reading a hook payload from stdin without ever hanging: some agents open stdin and never
 * close it (Kiro IDE 0.x), so the read is bounded in time and in size.
 *
 * @module
 */
import { after } from "./_deadline.ts";

/** Largest payload read; beyond it the input is reported as too large (and not parsed). */
export const MAX_STDIN_BYTES = 32 * 1024 * 1024;

/** How long to wait for stdin to close. */
export const STDIN_TIMEOUT_MS = 2000;

/** What {@linkcode readStdin} got. */
export interface StdinResult {
  /** The bytes read, decoded as UTF-8 (invalid sequences replaced). */
  text: string;
  /** True when the input hit `maxBytes` before its end. */
  overflow: boolean;
  /** True when stdin was still open at the deadline. */
  timedOut: boolean;
}

/** Something to read bytes from, like `Deno.stdin`. */
export interface ByteSource {
  /** Reads into `p`; resolves to the count read, or null at EOF. */
  read(p: Uint8Array): Promise<number | null>;
}

/** Options for {@linkcode readStdin}. */
export interface ReadStdinOptions {
  /** A source to read (defaults to `Deno.stdin`). */
  source?: ByteSource;
  /** A stream to read instead of `source`. */
  readable?: ReadableStream<Uint8Array>;
  /** Byte bound (default {@linkcode MAX_STDIN_BYTES}). */
  maxBytes?: number;
  /** Time bound (default {@linkcode STDIN_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Bytes asked for per read. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Reads stdin until EOF, `maxBytes` or `timeoutMs`, whichever comes first. Never rejects.
 * A read still pending at the deadline is abandoned; the shim exits explicitly, so it
 * cannot keep the process alive.
 *
 * Reads `Deno.stdin` directly rather than through `Deno.stdin.readable`: creating that stream
 * cost a shim about 4 ms of CPU at start-up (measured in Deno 2.9), a plain read well under 1.
 */
export async function readStdin(options: ReadStdinOptions = {}): Promise<StdinResult> {
  const maxBytes = options.maxBytes ?? MAX_STDIN_BYTES;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let overflow = false;
  let timedOut = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const source = options.source ?? Deno.stdin;
  const next = async (): Promise<Uint8Array | null> => {
    if (reader !== undefined) {
      const result = await reader.read();
      return result.done ? null : result.value;
    }
    const buffer = new Uint8Array(CHUNK_BYTES);
    const count = await source.read(buffer);
    return count === null ? null : buffer.subarray(0, count);
  };
  let disarm = () => {};
  const deadline = new Promise<"timeout">((resolve) => {
    disarm = after(options.timeoutMs ?? STDIN_TIMEOUT_MS, () => resolve("timeout"));
  });
  try {
    reader = options.readable?.getReader();
    while (true) {
      const chunk = await Promise.race([next(), deadline]);
      if (chunk === "timeout") {
        timedOut = true;
        break;
      }
      if (chunk === null) break;
      const room = maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = maxBytes;
        overflow = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch {
    // A closed or broken stdin is just an empty payload.
  } finally {
    disarm();
    if (timedOut || overflow) reader?.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { text: new TextDecoder().decode(bytes), overflow, timedOut };
}
