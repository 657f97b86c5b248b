/**
 * fast-check arbitraries for the wire shapes, shared by every member's property tests.
 *
 * @module
 */
import fc from "fast-check";
import { newEventId, newRecordId } from "../ids.ts";
import {
  type Event,
  EVENT_KINDS,
  type EventBody,
  type MemoryRecord,
  OBSERVATION_TYPES,
  STRATEGIES,
  SURFACES,
} from "../schemas/mod.ts";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A valid ULID (any, not only fresh ones). */
export function ulidArb(): fc.Arbitrary<string> {
  return fc.tuple(
    fc.constantFrom(..."01234567".split("")),
    fc.array(fc.constantFrom(...CROCKFORD.split("")), { minLength: 25, maxLength: 25 }),
  ).map(([head, tail]) => head + tail.join(""));
}

/** A valid namespace. */
export function namespaceArb(): fc.Arbitrary<string> {
  const segment = fc.stringMatching(/^[a-z0-9_.-]{1,20}$/);
  return fc.tuple(segment, fc.stringMatching(/^[0-9a-f]{64}$/)).map(([actor, id]) =>
    `/actor/${actor}/project/${id}/`
  );
}

/** A valid event body of any shape. */
export function bodyArb(): fc.Arbitrary<EventBody> {
  return fc.oneof(
    fc.record({ type: fc.constant("text" as const), content: fc.string({ maxLength: 200 }) }),
    fc.record({
      type: fc.constant("message" as const),
      turns: fc.array(
        fc.record({ role: fc.constantFrom("user", "assistant"), content: fc.string() }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
    fc.record({ type: fc.constant("json" as const), data: fc.jsonValue({ maxDepth: 3 }) }),
  );
}

/** An ISO timestamp between 2020 and 2030. */
export function isoTimeArb(): fc.Arbitrary<string> {
  return fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) =>
    new Date(ms).toISOString()
  );
}

/** A valid event. */
export function eventArb(): fc.Arbitrary<Event> {
  return fc.record({
    event_id: ulidArb(),
    session_id: fc.stringMatching(/^[a-zA-Z0-9-]{1,40}$/),
    actor_id: fc.stringMatching(/^[a-z]{1,12}$/),
    namespace: namespaceArb(),
    schema_version: fc.constant(1 as const),
    kind: fc.constantFrom(...EVENT_KINDS),
    body: bodyArb(),
    valid_time: isoTimeArb(),
    source: fc.record({
      surface: fc.constantFrom(...SURFACES),
      version: fc.constant("0.1.0"),
      client_id: fc.constant("host"),
      project_path: fc.constant("/tmp/project"),
    }),
  });
}

const word = fc.stringMatching(/^[a-z]{1,12}$/);

/** A valid memory record. */
export function recordArb(): fc.Arbitrary<MemoryRecord> {
  return fc.record({
    record_id: fc.constant(null).map(() => newRecordId()),
    namespace: namespaceArb(),
    strategy: fc.constantFrom(...STRATEGIES),
    title: fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(" ")),
    summary: fc.array(word, { minLength: 1, maxLength: 40 }).map((w) => w.join(" ")),
    facts: fc.array(fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(" ")), {
      maxLength: 4,
    }),
    concepts: fc.array(word, { maxLength: 4 }),
    files_touched: fc.array(word.map((w) => `src/${w}.ts`), { maxLength: 3 }),
    observation_type: fc.constantFrom(...OBSERVATION_TYPES),
    source_event_ids: fc.array(fc.constant(null).map(() => newEventId()), {
      minLength: 1,
      maxLength: 3,
    }),
    created_at: isoTimeArb(),
  });
}
