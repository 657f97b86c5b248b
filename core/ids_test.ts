import assert from "node:assert/strict";
import fc from "fast-check";
import {
  createUlidGenerator,
  derivedUlid,
  newEventId,
  newRecordId,
  newUlid,
  RECORD_ID_PATTERN,
  RECORD_ID_PREFIX,
  ULID_MAX_TIME,
  ULID_PATTERN,
  ulidTime,
} from "./ids.ts";

Deno.test("event ids are ULIDs and strictly increasing", () => {
  const ids = Array.from({ length: 2000 }, () => newEventId());
  for (const id of ids) assert.match(id, ULID_PATTERN);
  const sorted = [...ids].sort();
  assert.deepEqual(ids, sorted);
  assert.equal(new Set(ids).size, ids.length);
});

Deno.test("record ids carry the mr_ prefix", () => {
  const id = newRecordId();
  assert.match(id, RECORD_ID_PATTERN);
  assert.ok(!ULID_PATTERN.test(id));
  assert.ok(id.startsWith(RECORD_ID_PREFIX));
});

Deno.test("100k ids from the process generator are strictly increasing and unique", () => {
  let previous = newUlid();
  for (let i = 0; i < 100_000; i++) {
    const id = i % 2 === 0 ? newUlid() : newRecordId().slice(RECORD_ID_PREFIX.length);
    assert.ok(id > previous, `${id} <= ${previous} at ${i}`);
    previous = id;
  }
});

Deno.test("same-millisecond bursts increment the random part, keeping the time", () => {
  let t = 1_700_000_000_000;
  const next = createUlidGenerator({ now: () => t });
  const burst = Array.from({ length: 100_000 }, () => next());
  for (let i = 1; i < burst.length; i++) assert.ok(burst[i] > burst[i - 1], `at ${i}`);
  assert.ok(burst.every((id) => ulidTime(id) === t));
  assert.ok(burst.every((id) => id.slice(0, 10) === burst[0].slice(0, 10)));
  // The clock stepping back keeps the last time (ids still increase).
  t -= 5000;
  const afterStepBack = next();
  assert.ok(afterStepBack > burst.at(-1)!);
  assert.equal(ulidTime(afterStepBack), t + 5000);
  // A later millisecond starts a fresh random part under the new time.
  t += 10_000;
  const later = next();
  assert.equal(ulidTime(later), t);
  assert.ok(later > afterStepBack);
});

Deno.test("the increment carries across digits", () => {
  const next = createUlidGenerator({ now: () => 0, random: (b) => b.fill(31).fill(30, 15) });
  assert.equal(next(), "0000000000" + "ZZZZZZZZZZZZZZZY");
  assert.equal(next(), "0000000000" + "ZZZZZZZZZZZZZZZZ");
  assert.throws(() => next(), /overflow/);
  // The generator is left as it was: the next millisecond works again.
  const fresh = createUlidGenerator({ now: () => 0, random: (b) => b.fill(0).fill(31, 14) });
  assert.equal(fresh(), "0000000000" + "00000000000000ZZ");
  assert.equal(fresh(), "0000000000" + "0000000000000100");
});

Deno.test("ids decode to the time they were minted at", () => {
  const before = Date.now();
  const id = newEventId();
  const after = Date.now();
  const time = ulidTime(id);
  assert.ok(time >= before && time <= after, `${time} not in [${before}, ${after}]`);
  assert.equal(ulidTime(newRecordId()) >= before, true);
  // Reference values from the `ulid` package's encodeTime/decodeTime.
  assert.equal(ulidTime("01ARZ3NDEKTSV4RRFFQ69G5FAV"), 1469922850259);
  assert.equal(createUlidGenerator({ now: () => 1469918176385 })().slice(0, 10), "01ARYZ6S41");
  assert.equal(ulidTime("7ZZZZZZZZZ" + "0".repeat(16)), ULID_MAX_TIME);
  assert.throws(() => ulidTime("8ZZZZZZZZZ" + "0".repeat(16)), TypeError, "past the spec's range");
  assert.throws(() => ulidTime("not-a-ulid"), TypeError);
});

Deno.test("the patterns accept ULIDs to the spec and nothing else", () => {
  const valid = [
    "00000000000000000000000000",
    "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
    "01ARZ3NDEKTSV4RRFFQ69G5FAV",
  ];
  for (const id of valid) {
    assert.match(id, ULID_PATTERN);
    assert.match(RECORD_ID_PREFIX + id, RECORD_ID_PATTERN);
  }
  const invalid = [
    "80000000000000000000000000", // time past 2^48 - 1: would sort after every real id
    "ZZZZZZZZZZZZZZZZZZZZZZZZZZ",
    "01ARZ3NDEKTSV4RRFFQ69G5FA", // 25 characters
    "01ARZ3NDEKTSV4RRFFQ69G5FAVX", // 27
    "01ARZ3NDEKTSV4RRFFQ69G5FAI", // I, L, O, U are not Crockford digits
    "01ARZ3NDEKTSV4RRFFQ69G5FAL",
    "01ARZ3NDEKTSV4RRFFQ69G5FAO",
    "01ARZ3NDEKTSV4RRFFQ69G5FAU",
    "01arz3ndektsv4rrffq69g5fav", // ids are minted uppercase
    "01ARZ3NDEKTSV4RRFFQ69G5FA\n",
    "",
  ];
  for (const id of invalid) {
    assert.ok(!ULID_PATTERN.test(id), JSON.stringify(id));
    assert.ok(!RECORD_ID_PATTERN.test(RECORD_ID_PREFIX + id), JSON.stringify(id));
  }
});

Deno.test("times outside 0–2^48-1 are refused", () => {
  for (const bad of [-1, ULID_MAX_TIME + 1, 1.5, NaN]) {
    assert.throws(() => createUlidGenerator({ now: () => bad })(), RangeError, String(bad));
  }
});

Deno.test("property: any time and randomness gives a pattern-valid ULID that decodes back", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: ULID_MAX_TIME }),
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      fc.integer({ min: 1, max: 50 }),
      (time, bytes, count) => {
        const next = createUlidGenerator({ now: () => time, random: (b) => b.set(bytes) });
        let previous = "";
        for (let i = 0; i < count; i++) {
          let id: string;
          try {
            id = next();
          } catch (e) {
            // Only a random part near 2^80 - 1 can overflow within count increments.
            assert.ok(e instanceof RangeError);
            assert.ok(bytes.every((b, j) => j >= 14 || (b & 31) === 31));
            return;
          }
          assert.match(id, ULID_PATTERN);
          assert.match(RECORD_ID_PREFIX + id, RECORD_ID_PATTERN);
          assert.equal(ulidTime(id), time);
          assert.ok(id > previous);
          previous = id;
        }
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("derivedUlid: deterministic, valid, and sorted by its time", () => {
  const seed = new Uint8Array(32).map((_, i) => i * 7);
  const a = derivedUlid(1_700_000_000_000, seed);
  assert.equal(derivedUlid(1_700_000_000_000, seed), a);
  assert.match(a, ULID_PATTERN);
  assert.equal(ulidTime(a), 1_700_000_000_000);
  assert.ok(derivedUlid(1_700_000_000_001, seed) > a);
  assert.notEqual(derivedUlid(1_700_000_000_000, seed.map((b) => b ^ 1)), a);
  assert.throws(() => derivedUlid(0, new Uint8Array(4)), RangeError);
});
