import assert from "node:assert/strict";
import { OBSERVATION_TYPES, STRATEGIES } from "@kiro-learn/core/schemas";
import { type BusMessage, EventBus } from "../runtime/mod.ts";
import { FeedHub } from "./sse.ts";
import { CLIENT_CONSTANTS, CLIENT_ENUMS, ENUMS_ASSET, enumsModule } from "./_enums.ts";
import { STATIC_ROOT } from "./_static.ts";

/** The module the browser loads. */
async function load(): Promise<Record<string, unknown>> {
  return await import(new URL(`./static/${ENUMS_ASSET}`, import.meta.url).href);
}

Deno.test("enums.js exports core's lists, unchanged and in order", async () => {
  const mod = await load();
  assert.deepEqual(
    Object.keys(mod).sort(),
    [...Object.keys(CLIENT_ENUMS), ...Object.keys(CLIENT_CONSTANTS)].sort(),
  );
  for (const [name, { value }] of Object.entries(CLIENT_CONSTANTS)) {
    assert.deepEqual(mod[name], { ...value }, name);
  }
  assert.deepEqual(mod.OBSERVATION_TYPES, [...OBSERVATION_TYPES]);
  assert.deepEqual(mod.STRATEGIES, [...STRATEGIES]);
  assert.deepEqual(mod.RETRIEVAL_OUTCOMES, ["ok", "empty", "timeout", "error"]);
  for (const [name, { values }] of Object.entries(CLIENT_ENUMS)) {
    assert.deepEqual(mod[name], [...values], name);
  }
});

Deno.test("the live feed names its SSE events by the types enums.js lists", async () => {
  const { FEED_TYPES } = await load();
  const bus = new EventBus();
  const hub = new FeedHub(bus, { heartbeatMs: 60_000 });
  const controller = new AbortController();
  const res = hub.open(new Request("http://x/v1/feed", { signal: controller.signal }));
  const messages: BusMessage[] = [
    { type: "event", event_id: "e", namespace: "n", kind: "k", surface: "s", preview: "", at: "" },
    { type: "run", run: {} },
    { type: "retrieval", namespace: "n", records: [], latency_ms: 1, at: "" },
    { type: "record_saved", record_id: "r", namespace: "n", title: "t" },
    { type: "records_deleted", record_ids: [] },
  ];
  for (const message of messages) bus.publish(message);
  hub.closeAll();
  const sent = [...(await res.text()).matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(sent.filter((e) => e !== "hello"), FEED_TYPES);
});

Deno.test("static/js/enums.js is exactly what _enums.ts generates from the constants", async () => {
  const onDisk = await Deno.readTextFile(`${STATIC_ROOT}/${ENUMS_ASSET}`);
  assert.equal(
    onDisk,
    enumsModule(),
    "enums.js is stale: deno run --allow-write collector/daemon/viewer/_enums.ts",
  );
});
