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
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return {
      ok: false,
      response: errorResponse(400, "invalid JSON", {
        details: error instanceof Error ? error.message : String(error),
      }),
    };
  }
}
