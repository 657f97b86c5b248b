/**
 * Reading a hook payload from stdin without ever hanging: some agents open stdin and never
 * close it (Kiro IDE 0.x), so the read is bounded in time and in size.
 *
 * @module
 */

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

/** Options for {@linkcode readStdin}. */
export interface ReadStdinOptions {
  /** The stream (defaults to `Deno.stdin.readable`). */
  readable?: ReadableStream<Uint8Array>;
  /** Byte bound (default {@linkcode MAX_STDIN_BYTES}). */
  maxBytes?: number;
  /** Time bound (default {@linkcode STDIN_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/**
 * Reads stdin until EOF, `maxBytes` or `timeoutMs`, whichever comes first. Never rejects.
 * A reader still pending at the deadline is abandoned; the shim exits explicitly, so it
 * cannot keep the process alive.
 */
export async function readStdin(options: ReadStdinOptions = {}): Promise<StdinResult> {
  const maxBytes = options.maxBytes ?? MAX_STDIN_BYTES;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let overflow = false;
  let timedOut = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), options.timeoutMs ?? STDIN_TIMEOUT_MS);
  });
  try {
    reader = (options.readable ?? Deno.stdin.readable).getReader();
    while (true) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timeout") {
        timedOut = true;
        break;
      }
      if (next.done) break;
      const room = maxBytes - size;
      if (next.value.length > room) {
        chunks.push(next.value.subarray(0, room));
        size = maxBytes;
        overflow = true;
        break;
      }
      chunks.push(next.value);
      size += next.value.length;
    }
  } catch {
    // A closed or broken stdin is just an empty payload.
  } finally {
    clearTimeout(timer);
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
