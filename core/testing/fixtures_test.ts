import assert from "node:assert/strict";
import { EventSchema, MemoryRecordSchema } from "../schemas/mod.ts";
import { makeEvent, makeFsWriteEvent, makeRecord } from "./fixtures.ts";

Deno.test("the builders make events and records the schemas accept", () => {
  assert.ok(EventSchema.safeParse(makeEvent()).success);
  assert.ok(MemoryRecordSchema.safeParse(makeRecord()).success);
  const write = makeFsWriteEvent({ command: "create", path: "src/a.ts", file_text: "x" });
  assert.ok(EventSchema.safeParse(write).success);
  assert.equal(write.kind, "tool_use");
  assert.deepEqual(write.body, {
    type: "json",
    data: {
      tool_name: "fs_write",
      tool_input: { command: "create", path: "src/a.ts", file_text: "x" },
      tool_response: { success: true, result: [""] },
    },
  });
});
