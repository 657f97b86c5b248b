import assert from "node:assert/strict";
import fc from "fast-check";
import { eventArb, makeEvent } from "../testing/mod.ts";
import {
  DROPPED_LOG,
  DROPPED_LOG_MAX_BYTES,
  REJECTED_DIR,
  SPOOL_FILE_PATTERN,
  spoolEvent,
  spoolFilling,
  spoolStatus,
} from "./mod.ts";

async function withDir(fn: (dir: string) => Promise<void> | void): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-spool-" });
  try {
    await fn(`${dir}/spool`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("an event is spooled as <id>.json holding {event, query}, mode 0600, no tmp left", async () => {
  await withDir((dir) => {
    const event = makeEvent();
    const outcome = spoolEvent(event, { spoolDir: dir, maxBytes: 1 << 20, query: "retrieve" });
    assert.deepEqual(outcome, { spooled: true, path: `${dir}/${event.event_id}.json` });
    const record = JSON.parse(Deno.readTextFileSync(`${dir}/${event.event_id}.json`));
    assert.deepEqual(record, { event, query: "retrieve" });
    assert.equal(Deno.statSync(`${dir}/${event.event_id}.json`).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [`${event.event_id}.json`]);
    assert.deepEqual(spoolStatus(dir, { maxBytes: 1 << 20 }), {
      files: 1,
      bytes: Deno.statSync(`${dir}/${event.event_id}.json`).size,
      maxBytes: 1 << 20,
      dropped: 0,
    });
  });
});

Deno.test("a full spool writes nothing, logs the drop and warns", async () => {
  await withDir((dir) => {
    const first = spoolEvent(makeEvent(), { spoolDir: dir, maxBytes: 2000 });
    assert.equal(first.spooled, true);
    const big = makeEvent({ body: { type: "text", content: "x".repeat(3000) } });
    const second = spoolEvent(big, { spoolDir: dir, maxBytes: 2000 });
    assert.equal(second.spooled, false);
    assert.equal(spoolStatus(dir).files, 1);
    const log = Deno.readTextFileSync(`${dir}/${DROPPED_LOG}`);
    assert.match(log, new RegExp(`dropped ${big.event_id} kind=prompt`));
    assert.equal(spoolStatus(dir).dropped, 1);
  });
});

Deno.test("spoolStatus counts spooled events only; filling past 80% or after a drop", async () => {
  await withDir((dir) => {
    const event = makeEvent();
    spoolEvent(event, { spoolDir: dir, maxBytes: 1 << 20 });
    // What else lives there (the shims' transcript read marks and down notice, a rejected
    // file, a write in progress) is not an event waiting for the collector.
    Deno.mkdirSync(`${dir}/.turns`);
    Deno.writeTextFileSync(`${dir}/.turns/s-session`, "1234");
    Deno.writeTextFileSync(`${dir}/.down-notice`, "session\n");
    Deno.mkdirSync(`${dir}/${REJECTED_DIR}`);
    Deno.writeTextFileSync(`${dir}/${REJECTED_DIR}/x.json`, "{}");
    Deno.writeTextFileSync(`${dir}/.tmp-123.tmp`, "{}");
    const bytes = Deno.statSync(`${dir}/${event.event_id}.json`).size;
    const status = spoolStatus(dir, { maxBytes: 1 << 20 });
    assert.deepEqual(status, { files: 1, bytes, maxBytes: 1 << 20, dropped: 0 });
    assert.equal(spoolFilling(status), false);
    assert.equal(spoolFilling({ ...status, maxBytes: Math.floor(bytes / 0.8) }), true);
    assert.equal(spoolFilling({ ...status, maxBytes: Math.floor(bytes / 0.8) + 2 }), false);
    assert.equal(spoolFilling({ ...status, dropped: 1 }), true);
  });
});

Deno.test("dropped.log stays bounded and keeps the newest lines", async () => {
  await withDir((dir) => {
    spoolEvent(makeEvent(), { spoolDir: dir, maxBytes: 1 });
    let last = "";
    for (let i = 0; i < 800; i++) {
      const event = makeEvent({ session_id: `session-${i}-${"s".repeat(60)}` });
      spoolEvent(event, { spoolDir: dir, maxBytes: 1 });
      last = event.event_id;
    }
    const size = Deno.statSync(`${dir}/${DROPPED_LOG}`).size;
    assert.ok(size <= DROPPED_LOG_MAX_BYTES, `dropped.log is ${size} bytes`);
    assert.match(Deno.readTextFileSync(`${dir}/${DROPPED_LOG}`), new RegExp(last));
    assert.ok(spoolStatus(dir).dropped > 10);
  });
});

Deno.test("a missing spool dir is an empty spool", () => {
  assert.deepEqual(spoolStatus("/nonexistent/kiro-learn/spool", { maxBytes: 5 }), {
    files: 0,
    bytes: 0,
    maxBytes: 5,
    dropped: 0,
  });
});

Deno.test("an id that is not a ULID is never used as a file name", async () => {
  await withDir((dir) => {
    const outcome = spoolEvent(makeEvent({ event_id: "../../etc/passwd" }), {
      spoolDir: dir,
      maxBytes: 1 << 20,
    });
    assert.equal(outcome.spooled, false);
  });
});

Deno.test("property: any valid event round-trips through the spool", async () => {
  await withDir((dir) => {
    fc.assert(
      fc.property(
        eventArb(),
        fc.constantFrom("retrieve", "resume", "") as fc.Arbitrary<"retrieve" | "resume" | "">,
        (event, query) => {
          const outcome = spoolEvent(event, { spoolDir: dir, maxBytes: 1 << 30, query });
          assert.equal(outcome.spooled, true);
          const path = `${dir}/${event.event_id}.json`;
          assert.deepEqual(
            JSON.parse(Deno.readTextFileSync(path)),
            JSON.parse(JSON.stringify({ event, query })),
          );
          Deno.removeSync(path);
        },
      ),
      { numRuns: 50 },
    );
  });
});

Deno.test("spool file names match SPOOL_FILE_PATTERN; warnings go to the warn option", async () => {
  await withDir((dir) => {
    const event = makeEvent();
    const outcome = spoolEvent(event, { spoolDir: dir, maxBytes: 1 << 20 });
    assert.ok(outcome.spooled);
    assert.match(outcome.path.split("/").at(-1)!, SPOOL_FILE_PATTERN);
    assert.doesNotMatch("dropped.log", SPOOL_FILE_PATTERN);
    assert.doesNotMatch(`.${event.event_id}.tmp`, SPOOL_FILE_PATTERN);
    assert.equal(REJECTED_DIR, "rejected");
    const warnings: string[] = [];
    const full = spoolEvent(makeEvent(), {
      spoolDir: dir,
      maxBytes: 1,
      warn: (m) => warnings.push(m),
    });
    assert.equal(full.spooled, false);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^spool full/);
  });
});
