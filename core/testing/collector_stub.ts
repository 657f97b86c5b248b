/**
 * A stand-in collector for client tests: a handler that answers the hello as our collector
 * does (it holds the token), so a test can script every other answer. A stub without this is
 * an impostor, and no client sends it anything.
 *
 * @module
 */
import { collectorProof, HELLO_NONCE_PARAM, ROUTES } from "../api/wire.ts";

/**
 * Wraps `handler` so that the hello gets the proof for `token` (on the port the request was
 * addressed to); every other request goes to `handler`.
 */
export function withCollectorProof(
  token: string,
  handler: (request: Request) => Response | Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    if (url.pathname !== ROUTES.hello) return await handler(request);
    const nonce = url.searchParams.get(HELLO_NONCE_PARAM) ?? "";
    return Response.json({ proof: await collectorProof(token, { port: Number(url.port), nonce }) });
  };
}
