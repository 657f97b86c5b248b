/**
 * One HTTP/1.1 request written by hand on a raw connection, for what `fetch()` will not send: a
 * forged `Host` (DNS rebinding), a raw `..` or `%00` in the path.
 *
 * @module
 */

/**
 * Sends one request to `127.0.0.1:port` and returns the response as text: whole, or up to the
 * end of its headers when it is an endless stream (an event stream a refused request should
 * never have opened), so a defence that fails cannot hang the caller.
 */
export async function rawHttp(
  port: number,
  options: { path: string; method?: string; host?: string; headers?: Record<string, string> },
): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const headers = Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  await conn.write(
    new TextEncoder().encode(
      `${options.method ?? "GET"} ${options.path} HTTP/1.1\r\n` +
        `Host: ${options.host ?? `127.0.0.1:${port}`}\r\n${headers}Connection: close\r\n\r\n`,
    ),
  );
  let text = "";
  const buf = new Uint8Array(16_384);
  try {
    while (true) {
      const n = await conn.read(buf);
      if (n === null) return text;
      text += new TextDecoder().decode(buf.subarray(0, n));
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0 && /\r\ncontent-type: text\/event-stream/i.test(text.slice(0, end))) return text;
    }
  } finally {
    conn.close();
  }
}

/** The status code of a raw response (0 when there is no status line). */
export function rawStatus(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
}
