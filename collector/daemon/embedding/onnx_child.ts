/**
 * The onnx child process: loads the model folder given as the only argument and answers
 * newline-delimited JSON requests on stdin (`{"id":1,"texts":[…]}`) with one line each on stdout
 * (`{"type":"result","id":1,"vectors":[[…]]}` or `{"type":"error","id":1,"error":"…"}`). The
 * first line is `{"type":"ready","dim":N}` or `{"type":"load_error","error":"…"}`.
 *
 * It runs with `--allow-read=<model dir>` and `--allow-ffi=<onnxruntime-node's native folder>`
 * only (no net, write, env or run), so native inference cannot touch the collector's data.
 * It exits when stdin closes (the collector went away).
 *
 * @module
 */
import { loadOnnxModel, type OnnxModel } from "./_onnx_core.ts";

/** A request line. */
export interface OnnxRequest {
  /** Correlates the reply. */
  id: number;
  /** Texts to embed. */
  texts: string[];
}

/** A reply line. */
export type OnnxReply =
  | { type: "ready"; dim: number; max_tokens: number }
  | { type: "load_error"; error: string }
  | { type: "result"; id: number; vectors: number[][] }
  | { type: "error"; id: number; error: string };

const encoder = new TextEncoder();
const stdout = Deno.stdout.writable.getWriter();

async function send(reply: OnnxReply): Promise<void> {
  await stdout.write(encoder.encode(JSON.stringify(reply) + "\n"));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function main(dir: string | undefined): Promise<number> {
  if (!dir) {
    await send({ type: "load_error", error: "usage: onnx_child.ts <model dir>" });
    return 2;
  }
  let model: OnnxModel;
  try {
    model = await loadOnnxModel(dir);
  } catch (error) {
    await send({ type: "load_error", error: message(error) });
    return 1;
  }
  await send({ type: "ready", dim: model.dim, max_tokens: model.maxTokens });
  let buffer = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() === "") continue;
      let request: OnnxRequest;
      try {
        request = JSON.parse(line);
      } catch {
        continue; // Not from the collector; nothing to answer.
      }
      try {
        const vectors = await model.embed(request.texts);
        // JSON numbers carry float32 values exactly (every float32 is a double).
        await send({ type: "result", id: request.id, vectors: vectors.map((v) => Array.from(v)) });
      } catch (error) {
        await send({ type: "error", id: request.id, error: message(error) });
      }
    }
  }
  await model.close();
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args[0]));
