import assert from "node:assert/strict";
import {
  decodeTermSpace,
  encodeTermSpace,
  RECORD_SPACE_VERSION,
  recordSpaceColumn,
  recordSpaceDoc,
  trainRecordTermSpace,
} from "./record_space.ts";
import { makeRecord } from "../testing/mod.ts";

function records() {
  const out = [];
  for (let i = 0; i < 30; i++) {
    out.push(makeRecord({
      title: `netdev: fix crash in port ${i % 3}`,
      summary: "A null deref of the queue.",
      facts: ["The queue pointer was freed."],
      files_touched: ["lib/netdev.c"],
    }));
    out.push(makeRecord({ title: "netdev: avoid null deref of queue", summary: "Freed queue." }));
    out.push(makeRecord({ title: "docs: fix typo in manual", summary: "Spelling in the FAQ." }));
  }
  return out;
}

Deno.test("recordSpaceDoc: title, summary with facts, paths", () => {
  const doc = recordSpaceDoc(makeRecord({
    title: "t",
    summary: "s",
    facts: ["f1", "f2"],
    files_touched: ["a.c"],
  }));
  assert.deepEqual(doc, { title: "t", summary: "s f1 f2", files: ["a.c"] });
});

Deno.test("encodeTermSpace / decodeTermSpace: the same space back; another version is null", () => {
  const space = trainRecordTermSpace(records().map(recordSpaceDoc));
  const bytes = encodeTermSpace(space);
  const back = decodeTermSpace(bytes)!;
  assert.equal(back.dims, space.dims);
  assert.deepEqual([...back.columns], [...space.columns]);
  assert.deepEqual(back.vectors, space.vectors);
  assert.deepEqual(back.idf, space.idf);
  assert.deepEqual(back.singular, space.singular);
  // Whole-buffer bytes are read in place: no second copy of the space to collect later.
  assert.equal(back.vectors.buffer, bytes.buffer);
  assert.equal(back.idf.buffer, bytes.buffer);
  // A copy at an offset inside a larger buffer (as SQLite may hand it back) reads the same,
  // into its own arrays (a view would keep the larger buffer alive).
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  const copied = decodeTermSpace(shifted.subarray(3))!;
  assert.deepEqual(copied.vectors, space.vectors);
  assert.deepEqual(copied.idf, space.idf);
  assert.deepEqual(copied.singular, space.singular);
  assert.notEqual(copied.vectors.buffer, shifted.buffer);
  // Another version: the header says so, and it is retrained rather than misread.
  const other = new Uint8Array(bytes);
  const headerLength = new DataView(other.buffer).getUint32(4, true);
  const header = new TextDecoder().decode(other.subarray(8, 8 + headerLength));
  const bumped = header.replace(
    `"version":${RECORD_SPACE_VERSION}`,
    `"version":${RECORD_SPACE_VERSION + 1}`,
  );
  other.set(new TextEncoder().encode(bumped), 8);
  assert.equal(decodeTermSpace(other), null);
  assert.throws(() => decodeTermSpace(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), /bad magic/);
  assert.throws(() => decodeTermSpace(bytes.subarray(0, bytes.length - 4)), /expected/);
});

Deno.test("recordSpaceColumn: relative to the closest candidate, by title", () => {
  const space = trainRecordTermSpace(records().map(recordSpaceDoc));
  const column = recordSpaceColumn("crash", {
    space,
    records: [
      makeRecord({ title: "netdev: avoid null deref of queue" }),
      makeRecord({ title: "docs: fix typo in manual" }),
      makeRecord({ title: "nothing known here" }),
    ],
  });
  assert.equal(Math.max(...column), 1);
  assert.ok(column[0] > column[1], column.join(", "));
  assert.equal(column[2], 0);
});
