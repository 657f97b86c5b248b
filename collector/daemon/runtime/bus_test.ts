import assert from "node:assert/strict";
import { type BusMessage, EventBus } from "./bus.ts";

Deno.test("publishes to every subscriber, survives a throwing one, unsubscribes", () => {
  const bus = new EventBus();
  const seen: BusMessage[] = [];
  bus.subscribe(() => {
    throw new Error("broken");
  });
  const off = bus.subscribe((m) => seen.push(m));
  const message: BusMessage = { type: "records_deleted", record_ids: ["mr_x"] };
  bus.publish(message);
  assert.deepEqual(seen, [message]);
  off();
  bus.publish(message);
  assert.equal(seen.length, 1);
  assert.equal(bus.size, 1);
});
