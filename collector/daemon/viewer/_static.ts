/**
 * The viewer's static files (`/ui/static/*`), served without path traversal.
 *
 * The request path is checked before any file system call: NUL (raw or percent-encoded), a
 * failed decode, a backslash or a leftover `%` (double encoding) is a 400; a `.` or `..` segment
 * is a 403; anything else must be plain `[A-Za-z0-9_-][A-Za-z0-9._-]*` segments (so no hidden
 * files either) or it is a 404. The resolved real path must still lie under the static root, so a
 * symlink cannot lead out of it.
 *
 * @module
 */

/** Where the viewer's assets live (the daemon may read this directory, see permissions.ts). */
export const STATIC_ROOT: string = decodeURIComponent(
  new URL("./static", import.meta.url).pathname,
);

/** Content types by extension; anything else is served as `application/octet-stream`. */
export const MIME_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** A checked static path: its segments, or the status to refuse it with. */
export type StaticPath =
  | { ok: true; segments: string[] }
  | { ok: false; status: 400 | 403 | 404 };

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Checks a still-percent-encoded path relative to the static root (no leading slash). */
export function parseStaticPath(raw: string): StaticPath {
  if (raw.includes("\0")) return { ok: false, status: 400 };
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { ok: false, status: 400 };
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return { ok: false, status: 400 };
  const segments = decoded.split("/");
  if (segments.some((s) => s === "." || s === "..")) return { ok: false, status: 403 };
  // A `%` left after one decode is double encoding (`%252e%252e`): never a real asset name.
  if (decoded.includes("%")) return { ok: false, status: 400 };
  if (!segments.every((s) => SEGMENT.test(s))) return { ok: false, status: 404 };
  return { ok: true, segments };
}

/** The content type for a file name. */
export function mimeType(name: string): string {
  const dot = name.lastIndexOf(".");
  return (dot >= 0 ? MIME_TYPES[name.slice(dot).toLowerCase()] : undefined) ??
    "application/octet-stream";
}

/** Serves `raw` (relative, percent-encoded) from `root`; refuses anything outside it. */
export async function serveStatic(
  raw: string,
  options: { root?: string; request?: Request } = {},
): Promise<Response> {
  const root = options.root ?? STATIC_ROOT;
  const parsed = parseStaticPath(raw);
  if (!parsed.ok) return plain(parsed.status);
  let real: string;
  let rootReal: string;
  try {
    rootReal = await Deno.realPath(root);
    real = await Deno.realPath(`${rootReal}/${parsed.segments.join("/")}`);
  } catch {
    return plain(404);
  }
  if (!real.startsWith(rootReal + "/")) return plain(403);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(real);
  } catch {
    return plain(404);
  }
  if (!info.isFile) return plain(404);
  const etag = `"${info.size.toString(36)}-${(info.mtime?.getTime() ?? 0).toString(36)}"`;
  const headers = {
    "content-type": mimeType(real),
    // Assets are not content-hashed, so the browser revalidates (cheaply, via the ETag).
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
    etag,
  };
  if (options.request?.headers.get("if-none-match") === etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(await Deno.readFile(real), { headers });
}

function plain(status: 400 | 403 | 404): Response {
  const text = status === 400 ? "bad request" : status === 403 ? "forbidden" : "not found";
  return new Response(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
  });
}
