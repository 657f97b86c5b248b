/**
 * A minimal HTTP/1.1 POST over `Deno.connect`, for one request per process. The first `fetch`
 * in a fresh Deno process costs about 9 ms more than this (it sets up a pooled client), which
 * is a tenth of a shim's whole run; the collector speaks plain HTTP/1.1 on loopback, so a
 * `Connection: close` request and a read to the end is all a shim needs. Optionally a GET goes
 * first on the same connection and the POST is sent only if its answer is approved (the
 * collector's hello: the server that proved itself is the one that gets the POST).
 *
 * @module
 */
import { after } from "./_deadline.ts";

/** A response: status and body text. */
export interface HttpResponse {
  /** Status code. */
  status: number;
  /** Body, decoded as UTF-8 (de-chunked when needed). */
  body: string;
}

/** The request did not complete within its time budget. */
export class HttpTimeoutError extends Error {
  /** Creates the error. */
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "HttpTimeoutError";
  }
}

/** The server's answer to the `before` request was not approved: the POST was not sent. */
export class HttpNotApprovedError extends Error {
  /** Status of the answer that was not approved. */
  readonly status: number;

  /** Creates the error. */
  constructor(status: number) {
    super(`the answer to the first request (HTTP ${status}) was not approved; nothing was posted`);
    this.name = "HttpNotApprovedError";
    this.status = status;
  }
}

/** Options for {@linkcode httpPost}. */
export interface HttpPostOptions {
  /** Request headers (Host, Content-Length and Connection are added). */
  headers: Record<string, string>;
  /** Request body. */
  body: string;
  /** Budget for connect, send and receive together. */
  timeoutMs: number;
  /** Largest response read (default 4 MiB); beyond it the request fails. */
  maxResponseBytes?: number;
  /**
   * A GET sent first on the same (kept-alive) connection; the POST follows only when `approve`
   * says yes to its answer, else the call rejects with {@linkcode HttpNotApprovedError}. The
   * answer must be complete by its Content-Length (or chunked end) to be read.
   */
  before?: { path: string; approve(response: HttpResponse): boolean | Promise<boolean> };
}

const encoder = new TextEncoder();
const HEADER_END = [13, 10, 13, 10];
/** The last chunk of a chunked body with no trailers: `0\r\n\r\n`. */
const CHUNKED_END = [48, 13, 10, 13, 10];

/**
 * POSTs `body` to `http://<hostname>:<port><path>`. Rejects with {@linkcode HttpTimeoutError}
 * on timeout, with `Deno.errors.ConnectionRefused` when nothing listens, or with a plain
 * Error on a malformed answer.
 */
export async function httpPost(
  target: { hostname: string; port: number },
  path: string,
  options: HttpPostOptions,
): Promise<HttpResponse> {
  let conn: Deno.TcpConn | undefined;
  let disarm = () => {};
  const timeout = new Promise<never>((_, reject) => {
    disarm = after(options.timeoutMs, () => {
      // Closing makes a pending read or write fail, which ends the exchange below.
      try {
        conn?.close();
      } catch {
        // Already closed.
      }
      reject(new HttpTimeoutError(options.timeoutMs));
    });
  });
  try {
    return await Promise.race([exchange(), timeout]);
  } finally {
    disarm();
    try {
      conn?.close();
    } catch {
      // Already closed.
    }
  }

  async function exchange(): Promise<HttpResponse> {
    conn = await Deno.connect({ hostname: target.hostname, port: target.port });
    const host = target.hostname.includes(":") ? `[${target.hostname}]` : target.hostname;
    const max = options.maxResponseBytes ?? 4 * 1024 * 1024;
    if (options.before) {
      const get = `GET ${options.before.path} HTTP/1.1\r\nHost: ${host}:${target.port}\r\n\r\n`;
      await writeAll(conn, encoder.encode(get));
      const first = await readResponse(conn, Math.min(max, 64 * 1024));
      let answer: HttpResponse | null = null;
      try {
        answer = parseResponse(first);
      } catch {
        // Malformed: not approved.
      }
      if (answer === null || !(await options.before.approve(answer))) {
        throw new HttpNotApprovedError(answer?.status ?? 0);
      }
    }
    const body = encoder.encode(options.body);
    let head = `POST ${path} HTTP/1.1\r\nHost: ${host}:${target.port}\r\n`;
    for (const [name, value] of Object.entries(options.headers)) head += `${name}: ${value}\r\n`;
    head += `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    await writeAll(conn, concat([encoder.encode(head), body]));
    return parseResponse(await readResponse(conn, max));
  }
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.length) written += await conn.write(data.subarray(written));
}

/**
 * Reads until EOF, or until a Content-Length or chunked body is complete (a server may keep the
 * connection open).
 */
async function readResponse(conn: Deno.Conn, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let expected: number | null = null;
  let chunkedBody = false;
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
    size += n;
    if (size > max) throw new Error(`response larger than ${max} bytes`);
    if (expected === null) {
      const all = concat(chunks);
      const end = indexOf(all, HEADER_END);
      if (end >= 0) {
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(latin1(all.subarray(0, end)));
        const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(latin1(all.subarray(0, end)));
        expected = length && !chunked ? end + 4 + Number(length[1]) : -1;
        chunkedBody = chunked;
      }
    }
    if (expected !== null && expected >= 0 && size >= expected) break;
    if (chunkedBody && endsWith(chunks, CHUNKED_END)) break;
  }
  return concat(chunks);
}

/** Parses status, headers and body (de-chunking `Transfer-Encoding: chunked`). */
export function parseResponse(bytes: Uint8Array): HttpResponse {
  const end = indexOf(bytes, HEADER_END);
  if (end < 0) throw new Error("malformed HTTP response (no header end)");
  const head = latin1(bytes.subarray(0, end));
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  if (status === null) throw new Error("malformed HTTP response (no status line)");
  let body = bytes.subarray(end + 4);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) body = dechunk(body);
  else if (length) body = body.subarray(0, Number(length[1]));
  return { status: Number(status[1]), body: new TextDecoder().decode(body) };
}

function dechunk(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let offset = 0;
  while (offset < data.length) {
    const lineEnd = indexOf(data, [13, 10], offset);
    if (lineEnd < 0) break;
    const size = parseInt(latin1(data.subarray(offset, lineEnd)).split(";")[0].trim(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return concat(parts);
}

function endsWith(chunks: Uint8Array[], tail: number[]): boolean {
  let i = chunks.length;
  let size = 0;
  while (i > 0 && size < tail.length) size += chunks[--i].length;
  const last = concat(chunks.slice(i));
  if (last.length < tail.length) return false;
  return tail.every((byte, j) => last[last.length - tail.length + j] === byte);
}

function indexOf(haystack: Uint8Array, needle: number[], from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}
