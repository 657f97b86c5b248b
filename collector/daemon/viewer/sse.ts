/**
 * Server-sent events: the wire encoder and the live feed hub behind `GET /v1/feed`.
 *
 * Why SSE and not WebSockets: the feed only flows server → browser, `EventSource` reconnects by
 * itself, and it is plain HTTP, so the same Host/Origin guards and cookie or bearer auth apply
 * with no second protocol to secure.
 *
 * @module
 */
import type { BusMessage, EventBus } from "../runtime/mod.ts";

/** One SSE message. */
export interface SseMessage {
  /** Event name (`message` when absent). */
  event?: string;
  /** Payload; newlines become separate `data:` lines, as the format requires. */
  data: string;
  /** Event id. */
  id?: string;
  /** Reconnection delay the client should use, ms. */
  retry?: number;
}

/** Encodes one message as an SSE frame (terminated by a blank line). */
export function encodeSse(message: SseMessage): string {
  let out = "";
  // A CR or LF in a field name/value would end the field early and let data forge new fields.
  if (message.event !== undefined) out += `event: ${singleLine(message.event)}\n`;
  if (message.id !== undefined) out += `id: ${singleLine(message.id).replaceAll("\0", "")}\n`;
  if (message.retry !== undefined && Number.isInteger(message.retry) && message.retry >= 0) {
    out += `retry: ${message.retry}\n`;
  }
  for (const line of message.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return out + "\n";
}

/** Encodes a comment frame (ignored by clients; keeps proxies and dead-peer detection busy). */
export function encodeSseComment(text: string): string {
  return text.split(/\r\n|\r|\n/).map((line) => `: ${line}\n`).join("") + "\n";
}

function singleLine(value: string): string {
  return value.replace(/[\r\n]/g, " ");
}

/** Options for {@linkcode FeedHub}. */
export interface FeedHubOptions {
  /** Interval between heartbeat comments, ms (default 15 s). */
  heartbeatMs?: number;
  /** Open feeds allowed at once (default 32); more get a 503. */
  maxFeeds?: number;
  /** Frames a slow client may fall behind before its feed is dropped (default 512). */
  maxBacklog?: number;
}

/** The live feeds currently open, fed from one bus. */
export class FeedHub {
  #bus: EventBus;
  #feeds = new Set<() => void>();
  #nextId = 0;
  #heartbeatMs: number;
  #maxFeeds: number;
  #maxBacklog: number;

  /** Creates a hub over `bus`. */
  constructor(bus: EventBus, options: FeedHubOptions = {}) {
    this.#bus = bus;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#maxFeeds = options.maxFeeds ?? 32;
    this.#maxBacklog = options.maxBacklog ?? 512;
  }

  /** Feeds open now. */
  get size(): number {
    return this.#feeds.size;
  }

  /**
   * Opens a feed for `request`: an SSE response that carries every bus message until the client
   * goes away, the request is aborted, or {@linkcode FeedHub.closeAll} runs.
   */
  open(request: Request): Response {
    if (this.#feeds.size >= this.#maxFeeds) {
      return Response.json({ error: "too many live feeds open" }, {
        status: 503,
        headers: { "retry-after": "5" },
      });
    }
    const encoder = new TextEncoder();
    let cleanup = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let done = false;
        const send = (text: string): void => {
          if (done) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            cleanup();
            return;
          }
          // A client that stops reading must not make the collector buffer without bound.
          if ((controller.desiredSize ?? 0) < -this.#maxBacklog) {
            cleanup();
          }
        };
        const unsubscribe = this.#bus.subscribe((message: BusMessage) => {
          send(encodeSse({
            event: message.type,
            id: String(++this.#nextId),
            data: JSON.stringify(message),
          }));
        });
        const heartbeat = setInterval(() => send(encodeSseComment("ping")), this.#heartbeatMs);
        const onAbort = () => cleanup();
        cleanup = () => {
          if (done) return;
          done = true;
          unsubscribe();
          clearInterval(heartbeat);
          request.signal.removeEventListener("abort", onAbort);
          this.#feeds.delete(cleanup);
          try {
            controller.close();
          } catch {
            // Already cancelled by the client.
          }
        };
        this.#feeds.add(cleanup);
        request.signal.addEventListener("abort", onAbort);
        if (request.signal.aborted) {
          cleanup();
          return;
        }
        send(
          encodeSse({ event: "hello", retry: 3000, data: JSON.stringify({ feeds: this.size }) }),
        );
      },
      cancel: () => cleanup(),
    }, new CountQueuingStrategy({ highWaterMark: 16 }));
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }

  /** Ends every open feed (the collector is shutting down; a graceful shutdown waits for them). */
  closeAll(): void {
    for (const close of [...this.#feeds]) close();
  }
}
