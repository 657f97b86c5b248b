import assert from "node:assert/strict";
import fc from "fast-check";
import { type BusMessage, EventBus } from "../runtime/mod.ts";
import { encodeSse, encodeSseComment, FeedHub } from "./sse.ts";

interface Parsed {
  event: string;
  data: string;
  id: string;
  retry?: number;
}

/** A parser that follows the HTML spec's event-stream interpretation rules. */
function parseSse(text: string): { messages: Parsed[]; comments: string[] } {
  const messages: Parsed[] = [];
  const comments: string[] = [];
  let data = "";
  let event = "";
  let id = "";
  let retry: number | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data !== "") {
        messages.push({ event: event || "message", data: data.slice(0, -1), id, retry });
      }
      data = "";
      event = "";
      retry = undefined;
      continue;
    }
    if (line.startsWith(":")) {
      comments.push(line.slice(1).replace(/^ /, ""));
      continue;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data += value + "\n";
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
  }
  return { messages, comments };
}

Deno.test("encodeSse writes the fields the spec reads", () => {
  assert.equal(
    encodeSse({ event: "run", id: "7", retry: 3000, data: "a\nb" }),
    "event: run\nid: 7\nretry: 3000\ndata: a\ndata: b\n\n",
  );
  assert.equal(encodeSse({ data: "" }), "data: \n\n");
  assert.equal(encodeSseComment("ping"), ": ping\n\n");
});

Deno.test("property: any payload round-trips, and nothing can forge extra fields", () => {
  const text = fc.string({ unit: fc.constantFrom("a", " ", ":", "\n", "\r", "é", "d", "\0", "e") });
  fc.assert(
    fc.property(text, text, text, (event, id, data) => {
      const frame = encodeSse({ event: event === "" ? undefined : event, id, data });
      assert.ok(frame.endsWith("\n\n"));
      assert.ok(!frame.slice(0, -1).includes("\n\n"), "one frame, one blank line");
      const { messages } = parseSse(frame);
      assert.equal(messages.length, 1);
      assert.equal(messages[0].data, data.replace(/\r\n|\r/g, "\n"));
      const expectedEvent = event === "" ? "message" : event.replace(/[\r\n]/g, " ");
      assert.equal(messages[0].event, expectedEvent);
      assert.equal(messages[0].id, id.replace(/[\r\n]/g, " ").replaceAll("\0", ""));
    }),
  );
});

async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  while (!done(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text;
}

const saved: BusMessage = { type: "record_saved", record_id: "mr_X", namespace: "/n/", title: "T" };

Deno.test("a feed says hello, relays bus messages, and unsubscribes when the client leaves", async () => {
  const bus = new EventBus();
  const hub = new FeedHub(bus, { heartbeatMs: 60_000 });
  const res = hub.open(new Request("http://127.0.0.1/v1/feed"));
  assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
  assert.equal(res.headers.get("cache-control"), "no-store");
  const reader = res.body!.getReader();
  const hello = parseSse(await readUntil(reader, (t) => t.includes("\n\n")));
  assert.equal(hello.messages[0].event, "hello");
  assert.equal(hello.messages[0].retry, 3000);
  assert.equal(bus.size, 1);
  assert.equal(hub.size, 1);

  bus.publish(saved);
  const { messages } = parseSse(await readUntil(reader, (t) => t.includes("\n\n")));
  assert.equal(messages[0].event, "record_saved");
  assert.deepEqual(JSON.parse(messages[0].data), saved);
  assert.equal(messages[0].id, "1");

  await reader.cancel();
  assert.equal(bus.size, 0, "cancel unsubscribed");
  assert.equal(hub.size, 0);
});

Deno.test("aborting the request or closeAll ends the feed", async () => {
  const bus = new EventBus();
  const hub = new FeedHub(bus, { heartbeatMs: 60_000 });
  const abort = new AbortController();
  const first = hub.open(new Request("http://127.0.0.1/v1/feed", { signal: abort.signal }));
  const second = hub.open(new Request("http://127.0.0.1/v1/feed"));
  assert.equal(bus.size, 2);
  abort.abort();
  assert.equal(bus.size, 1);
  assert.equal(await first.text(), encodeSse({ event: "hello", retry: 3000, data: '{"feeds":1}' }));
  hub.closeAll();
  assert.equal(bus.size, 0);
  assert.match(await second.text(), /event: hello/, "the stream ended, so text() resolved");
  const late = hub.open(new Request("http://127.0.0.1/v1/feed", { signal: AbortSignal.abort() }));
  assert.equal(bus.size, 0, "an already-aborted request never subscribes");
  await late.body?.cancel();
});

Deno.test("heartbeats are comments; too many feeds get a 503; a stalled client is dropped", async () => {
  const bus = new EventBus();
  const hub = new FeedHub(bus, { heartbeatMs: 10, maxFeeds: 1, maxBacklog: 4 });
  const res = hub.open(new Request("http://127.0.0.1/v1/feed"));
  const reader = res.body!.getReader();
  const text = await readUntil(reader, (t) => t.includes(": ping\n\n"));
  assert.deepEqual(parseSse(text).comments.slice(0, 1), ["ping"]);
  const refused = hub.open(new Request("http://127.0.0.1/v1/feed"));
  assert.equal(refused.status, 503);
  await refused.body?.cancel();
  // Stop reading: the queue fills past the backlog limit and the hub lets go of the feed.
  for (let i = 0; i < 64; i++) bus.publish(saved);
  assert.equal(bus.size, 0);
  assert.equal(hub.size, 0);
  await reader.cancel();
});
