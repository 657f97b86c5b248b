/**
 * Reading a JSON request body with a byte cap, a content-type check and clear errors.
 *
 * @module
 */
import { errorResponse } from "./errors.ts";

/** A parsed body, or the error response to send instead. */
export type BodyResult = { ok: true; value: unknown } | { ok: false; response: Response };

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Longest a request body may take to arrive, from the first read to the last byte. Deno.serve
 * has no read timeout of its own, so a client that sends its headers and then stalls (or
 * trickles) would otherwise hold a handler, and the connection, for ever. Loopback clients send
 * the largest body the API takes (2 MiB) in milliseconds.
 */
export const BODY_READ_TIMEOUT_MS = 10_000;

/** Options for {@linkcode readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest body accepted, bytes (more gets 413). */
  maxBytes: number;
  /** Longest the whole body may take to arrive (default {@linkcode BODY_READ_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/**
 * Reads and parses a JSON body of at most `maxBytes`. A body that has not fully arrived within
 * the timeout gets 408 with `Connection: close`, and the connection is dropped.
 */
export async function readJsonBody(
  request: Request,
  options: ReadJsonBodyOptions,
): Promise<BodyResult> {
  const type = request.headers.get("content-type");
  if (type !== null && !type.toLowerCase().startsWith("application/json")) {
    return {
      ok: false,
      response: errorResponse(415, "unsupported content type", {
        details: `send Content-Type: application/json (got ${type.slice(0, 100)})`,
      }),
    };
  }
  const tooLarge = () => ({
    ok: false as const,
    response: errorResponse(413, "request body too large", {
      details: `the limit is ${options.maxBytes} bytes`,
    }),
  });
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await request.body?.cancel().catch(() => {});
    return tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const timeoutMs = options.timeoutMs ?? BODY_READ_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const reader = request.body?.getReader();
  try {
    while (reader) {
      const next = await Promise.race([reader.read(), timedOut]);
      if (next === "timeout") {
        reader.cancel().catch(() => {});
        return {
          ok: false,
          response: errorResponse(408, "request body timeout", {
            details: `the body did not arrive within ${timeoutMs / 1000} s; send it whole, ` +
              "at once, with a correct Content-Length",
            headers: { connection: "close" },
          }),
        };
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > options.maxBytes) {
        reader.cancel().catch(() => {});
        return tooLarge();
      }
      chunks.push(next.value);
    }
  } catch {
    return { ok: false, response: errorResponse(400, "request read error") };
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, response: errorResponse(400, "body is not valid UTF-8") };
  }
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    return {
      ok: false,
      response: errorResponse(400, "JSON nested too deeply", {
        details: `at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
      }),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      response: errorResponse(400, "invalid JSON", {
        details: error instanceof Error ? error.message : String(error),
      }),
    };
  }
  const bad = badString(value);
  if (bad !== null) {
    return {
      ok: false,
      response: errorResponse(400, `a string holds ${bad}`, {
        details:
          "SQLite and the viewer would store or show it cut or changed; send text without it",
      }),
    };
  }
  return { ok: true, value };
}

/** Deepest nesting of arrays and objects a request may send. */
export const MAX_JSON_DEPTH = 64;

/** True when `text`'s brackets nest deeper than `max` (strings skipped); linear, no recursion. */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

// deno-lint-ignore no-control-regex
const NUL = /\u0000/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string somewhere in `value` (keys included), or null. */
export function badString(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    const strings: string[] = [];
    if (typeof item === "string") strings.push(item);
    else if (Array.isArray(item)) stack.push(...item);
    else if (item !== null && typeof item === "object") {
      for (const [key, v] of Object.entries(item)) {
        strings.push(key);
        stack.push(v);
      }
    }
    for (const s of strings) {
      if (NUL.test(s)) return "a NUL character (\\u0000)";
      if (LONE_SURROGATE.test(s)) return "a lone UTF-16 surrogate";
    }
  }
  return null;
}
