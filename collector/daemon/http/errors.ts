/**
 * JSON error responses: `{error, details?}`, never a stack trace.
 *
 * @module
 */

/** Status codes the API answers errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 410 | 413 | 415 | 500 | 503;

/** Builds a JSON error response. */
export function errorResponse(
  status: ErrorStatus,
  error: string,
  options: { details?: unknown; headers?: Record<string, string> } = {},
): Response {
  const body: { error: string; details?: unknown } = { error };
  if (options.details !== undefined) body.details = options.details;
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...options.headers },
  });
}
