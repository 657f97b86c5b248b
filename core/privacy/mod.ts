/**
 * Privacy: the `<private>` scrub and secret redaction applied to event bodies before anything is
 * stored (spec §2). Everything here is pure and returns new values; inputs are never mutated.
 *
 * @module
 */

import { scrubPrivate, scrubPrivateFrom } from "./scrub.ts";
import { redactKeyedValue, redactSecrets } from "./redact.ts";

export { PRIVATE_REDACTION, scrubPrivate, scrubPrivateFrom } from "./scrub.ts";
export {
  redactionMarker,
  redactKeyedValue,
  redactSecrets,
  SECRET_KINDS,
  type SecretKind,
  secretKindForKey,
} from "./redact.ts";

/**
 * Scrubs one string: `<private>` spans first (so a secret inside a private span is simply part of
 * `[REDACTED]`), then secret redaction.
 */
export function scrubText(text: string): string {
  return redactSecrets(scrubPrivate(text));
}

function isJsonContainer(value: unknown): value is unknown[] | Record<string, unknown> {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// A `<private>` span still open after the strings scrubbed so far (in document order).
interface SpanState {
  open: boolean;
}

function scrubLeaf(value: unknown, key: string | undefined, state: SpanState): unknown {
  if (typeof value !== "string") return value;
  const span = scrubPrivateFrom(value, state);
  state.open = span.open;
  const scrubbed = redactSecrets(span.text);
  return key === undefined ? scrubbed : redactKeyedValue(key, scrubbed);
}

interface Frame {
  isArray: boolean;
  entries: [string, unknown][];
  index: number;
  results: [string, unknown][];
  // The output key of the entry being walked, so a finished child knows where it goes.
  pendingKey: string;
  // For an array, the object key it sits under, so `{"credentials": ["x"]}` is still keyed.
  contextKey: string | undefined;
}

function openFrame(
  value: unknown[] | Record<string, unknown>,
  contextKey: string | undefined,
): Frame {
  const isArray = Array.isArray(value);
  return {
    isArray,
    entries: isArray ? value.map((item, i) => [String(i), item]) : Object.entries(value),
    index: 0,
    results: [],
    pendingKey: "",
    contextKey: isArray ? contextKey : undefined,
  };
}

function closeFrame(frame: Frame): unknown {
  if (frame.isArray) return frame.results.map(([, item]) => item);
  // fromEntries defines own properties, so a `__proto__` key stays data instead of a prototype.
  return Object.fromEntries(frame.results);
}

/**
 * Returns a scrubbed deep copy of a JSON value: every string leaf goes through {@link scrubText}
 * and every object key is scrubbed too; a `<private>` span opened in one string and closed in a
 * later one (document order) is redacted on both sides. A string sitting directly under a secret-looking key
 * (`{"password": "hunter2"}`, or in an array under it) is replaced by a marker as a whole, since
 * the key that gave it away is not part of the string.
 *
 * Numbers, booleans and `null` are copied as is. Values that are not plain JSON (a `Date`, a
 * `Map`, class instances) are passed through by reference. If two keys scrub to the same text
 * (two different `<private>` keys both become `[REDACTED]`), the later one wins. The walk is
 * iterative, so deeply nested input cannot overflow the stack. The input is never mutated.
 */
export function scrubJson(value: unknown): unknown {
  const state: SpanState = { open: false };
  if (!isJsonContainer(value)) return scrubLeaf(value, undefined, state);
  const stack: Frame[] = [openFrame(value, undefined)];
  for (;;) {
    const frame = stack[stack.length - 1];
    if (frame.index < frame.entries.length) {
      const [key, item] = frame.entries[frame.index++];
      frame.pendingKey = frame.isArray ? key : scrubText(key);
      // The scrubbed key decides, so that scrubbing a scrubbed value changes nothing.
      const context = frame.isArray ? frame.contextKey : frame.pendingKey;
      if (isJsonContainer(item)) stack.push(openFrame(item, context));
      else frame.results.push([frame.pendingKey, scrubLeaf(item, context, state)]);
      continue;
    }
    const built = closeFrame(frame);
    stack.pop();
    const parent = stack[stack.length - 1];
    if (parent === undefined) return built;
    parent.results.push([parent.pendingKey, built]);
  }
}

/** A plain-text event body. */
export interface TextBody {
  /** Discriminant. */
  type: "text";
  /** The text. */
  content: string;
}

/** One turn of a conversation body. */
export interface MessageTurn {
  /** Who spoke (`user`, `assistant`, ...). Not scrubbed. */
  role: string;
  /** What was said. */
  content: string;
}

/** A conversation event body. */
export interface MessageBody {
  /** Discriminant. */
  type: "message";
  /** The turns, in order. */
  turns: MessageTurn[];
}

/** A structured event body. */
export interface JsonBody {
  /** Discriminant. */
  type: "json";
  /** Any JSON value. */
  data: unknown;
}

/** The three event body shapes that {@link scrubEventBody} understands. */
export type EventBody = TextBody | MessageBody | JsonBody;

/**
 * Returns a scrubbed copy of an event body of the same shape: `text` scrubs `content`, `message`
 * scrubs every turn's `content` (roles are kept), `json` scrubs `data` with {@link scrubJson}.
 * Any other fields are copied unchanged, and a body with an unknown `type` is returned as a
 * shallow copy. The input is never mutated.
 */
export function scrubEventBody<B extends EventBody>(body: B): B {
  const shape: EventBody = body;
  switch (shape.type) {
    case "text":
      return { ...shape, content: scrubText(shape.content) } as B;
    case "message": {
      const state: SpanState = { open: false };
      return {
        ...shape,
        turns: shape.turns.map((turn) => ({
          ...turn,
          content: scrubLeaf(turn.content, undefined, state) as string,
        })),
      } as B;
    }
    case "json":
      return { ...shape, data: scrubJson(shape.data) } as B;
    default:
      return { ...(body as object) } as B;
  }
}

/** The fields of an event besides its body that carry free text. */
interface EventFields {
  session_id: string;
  actor_id: string;
  source: { client_id: string; version: string; project_path?: string };
}

/**
 * Scrubs an event's free-text fields besides the body: session and actor ids, the client id, the
 * version and the project path (a working directory can hold `<private>` or a token as well as
 * any prompt). Ids, namespace, kind and time are validated shapes and stay as they are.
 */
export function scrubEventFields<E extends EventFields>(event: E): E {
  const source = { ...event.source };
  source.client_id = scrubText(source.client_id);
  source.version = scrubText(source.version);
  if (source.project_path !== undefined) source.project_path = scrubText(source.project_path);
  return {
    ...event,
    session_id: scrubText(event.session_id),
    actor_id: scrubText(event.actor_id),
    source,
  };
}

/** An event scrubbed whole: its body ({@linkcode scrubEventBody}) and its other free-text fields. */
export function scrubEvent<E extends EventFields & { body: EventBody }>(event: E): E {
  return scrubEventFields({ ...event, body: scrubEventBody(event.body) });
}
