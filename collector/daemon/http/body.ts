/**
 * Reading a JSON request body with a byte cap, a content-type check and clear errors.
 *
 * @module
 */
import { errorResponse } from "./errors.ts";

/** A parsed body, or the error response to send instead. */
export type BodyResult = { ok: true; value: unknown } | { ok: false; response: Response };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Reads and parses a JSON body of at most `maxBytes`. */
export async function readJsonBody(
  request: Request,
  options: { maxBytes: number },
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
  try {
    if (request.body) {
      for await (const chunk of request.body) {
        size += chunk.byteLength;
        if (size > options.maxBytes) return tooLarge();
        chunks.push(chunk);
      }
    }
  } catch {
    return { ok: false, response: errorResponse(400, "request read error") };
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
