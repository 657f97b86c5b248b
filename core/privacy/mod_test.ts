import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type EventBody,
  PRIVATE_REDACTION,
  redactionMarker,
  redactKeyedValue,
  redactSecrets,
  scrubEvent,
  scrubEventBody,
  scrubEventFields,
  scrubJson,
  scrubPrivate,
  scrubPrivateFrom,
  scrubText,
} from "./mod.ts";

const GHP = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";

Deno.test("scrubText: the <private> scrub runs first, then secret redaction", () => {
  assert.equal(scrubText(`a <private>${GHP}</private> b`), `a ${PRIVATE_REDACTION} b`);
  assert.equal(
    scrubText(`a ${GHP} <private>x</private>`),
    `a ${redactionMarker("github_token")} ${PRIVATE_REDACTION}`,
  );
  assert.equal(scrubText("password=<private>x</private>"), `password=${PRIVATE_REDACTION}`);
  assert.equal(scrubText("plain text"), "plain text");
});

Deno.test("scrubJson scrubs string leaves and object keys, recursively", () => {
  const input = {
    "<private>k</private>": "v",
    [`key ${GHP}`]: 1,
    list: ["a", `<private>b`, { deep: [`token ${GHP}`] }],
    n: 3,
    b: false,
    z: null,
    env: { DB_PASSWORD: "hunter2", PWD: "/home/me", token_count: "12" },
    credentials: ["abc", "def"],
    note: "api_key=abc123",
  };
  assert.deepEqual(scrubJson(input), {
    [PRIVATE_REDACTION]: "v",
    [`key ${redactionMarker("github_token")}`]: 1,
    list: ["a", PRIVATE_REDACTION, { deep: [`token ${redactionMarker("github_token")}`] }],
    n: 3,
    b: false,
    z: null,
    env: { DB_PASSWORD: redactionMarker("password"), PWD: "/home/me", token_count: "12" },
    credentials: [redactionMarker("secret"), redactionMarker("secret")],
    note: `api_key=${redactionMarker("secret")}`,
  });
});

Deno.test("scrubJson handles scalars, non-plain objects and tricky keys", () => {
  assert.equal(scrubJson("<private>x</private>"), PRIVATE_REDACTION);
  assert.equal(scrubJson(42), 42);
  assert.equal(scrubJson(null), null);
  assert.equal(scrubJson(undefined), undefined);
  const date = new Date(0);
  assert.equal(scrubJson(date), date);
  assert.deepEqual(scrubJson([]), []);
  assert.deepEqual(scrubJson({}), {});

  const withProto = JSON.parse('{"__proto__": {"polluted": "<private>x</private>"}}');
  const out = scrubJson(withProto) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, "__proto__")?.value, {
    polluted: PRIVATE_REDACTION,
  });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);

  // Two keys that scrub to the same text: the later one wins.
  assert.deepEqual(
    scrubJson({ "<private>a</private>": 1, "<private>b</private>": 2 }),
    { [PRIVATE_REDACTION]: 2 },
  );
});

Deno.test("scrubJson walks very deep values without overflowing the stack", () => {
  let value: unknown = "<private>bottom</private>";
  for (let i = 0; i < 200_000; i++) value = i % 2 === 0 ? [value] : { k: value };
  let out = scrubJson(value);
  for (let i = 200_000 - 1; i >= 0; i--) {
    out = i % 2 === 0 ? (out as unknown[])[0] : (out as Record<string, unknown>).k;
  }
  assert.equal(out, PRIVATE_REDACTION);
});

// A straightforward recursive reading of the spec, to compare the iterative walk against.
// Recursive, with the open-span state carried through the strings in document order.
function reference(value: unknown, key?: string, state = { open: false }): unknown {
  if (typeof value === "string") {
    const span = scrubPrivateFrom(value, state);
    state.open = span.open;
    const scrubbed = redactSecrets(span.text);
    return key === undefined ? scrubbed : redactKeyedValue(key, scrubbed);
  }
  if (Array.isArray(value)) return value.map((item) => reference(item, key, state));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [scrubText(k), reference(v, scrubText(k), state)]),
    );
  }
  return value;
}

const secretish = fc.constantFrom(
  "<private>",
  "</private>",
  "x",
  " ",
  "password",
  "=",
  ": ",
  "hunter2",
  GHP,
  "token",
  "api_key",
);
const jsonWithSecrets = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(
      fc.string(),
      fc.array(secretish, { maxLength: 6 }).map((parts) => parts.join("")),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    ),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        fc.string(),
        fc.constantFrom("password", "DB_PASSWORD", "token", "credentials", "name"),
        fc.array(secretish, { maxLength: 4 }).map((parts) => parts.join("")),
      ),
      tie("value"),
      { maxKeys: 4 },
    ),
  ),
})).value;

const anyJson = fc.oneof(fc.jsonValue(), jsonWithSecrets);

Deno.test("property: scrubJson matches a recursive reference implementation", () => {
  fc.assert(
    fc.property(anyJson, (value) => {
      assert.deepEqual(scrubJson(value), reference(value));
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: scrubJson never mutates its input", () => {
  fc.assert(
    fc.property(anyJson, (value) => {
      const before = JSON.stringify(value);
      scrubJson(value);
      assert.equal(JSON.stringify(value), before);
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: scrubJson is idempotent and leaves no private tag in keys or leaves", () => {
  const opener = /<\s*private\s*>/i;
  fc.assert(
    fc.property(anyJson, (value) => {
      const once = scrubJson(value);
      assert.deepEqual(scrubJson(once), once);
      assert.ok(!opener.test(JSON.stringify(once) ?? ""));
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: scrubJson scrubs every object key", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.string({ minLength: 1 }).filter((s) => !s.includes("<")), {
        minLength: 1,
        maxLength: 5,
      }),
      fc.string().filter((s) => !s.includes("<")),
      (secrets, prefix) => {
        const keys = secrets.map((s, i) => `${prefix}${i}<private>${s}</private>`);
        const out = scrubJson(Object.fromEntries(keys.map((k) => [k, 1])));
        const outKeys = Object.keys(out as Record<string, unknown>);
        assert.deepEqual(outKeys.sort(), [...new Set(keys.map(scrubText))].sort());
        for (const key of outKeys) {
          assert.ok(!key.includes("<private>"));
          assert.equal(key, redactSecrets(scrubPrivate(key)));
        }
      },
    ),
  );
});

Deno.test("scrubEventBody scrubs each body shape and returns a new body", () => {
  const text: EventBody = { type: "text", content: `see <private>x</private> ${GHP}` };
  const textOut = scrubEventBody(text);
  assert.deepEqual(textOut, {
    type: "text",
    content: `see ${PRIVATE_REDACTION} ${redactionMarker("github_token")}`,
  });
  assert.notEqual(textOut, text);
  assert.equal(text.content, `see <private>x</private> ${GHP}`);

  const message: EventBody = {
    type: "message",
    turns: [
      { role: "user", content: "my password=hunter2" },
      { role: "<private>assistant</private>", content: "<private>ok" },
    ],
  };
  const before = structuredClone(message);
  const messageOut = scrubEventBody(message);
  assert.deepEqual(messageOut, {
    type: "message",
    turns: [
      { role: "user", content: `my password=${redactionMarker("password")}` },
      { role: "<private>assistant</private>", content: PRIVATE_REDACTION },
    ],
  });
  assert.deepEqual(message, before);
  assert.notEqual(messageOut.turns, message.turns);

  const json: EventBody = {
    type: "json",
    data: { tool_input: { command: "export GITHUB_TOKEN=abc123" }, "<private>k</private>": 1 },
  };
  assert.deepEqual(scrubEventBody(json), {
    type: "json",
    data: {
      tool_input: { command: `export GITHUB_TOKEN=${redactionMarker("secret")}` },
      [PRIVATE_REDACTION]: 1,
    },
  });
});

Deno.test("scrubEventBody keeps extra fields and copies unknown body types", () => {
  const withExtra = { type: "text" as const, content: "<private>x</private>", lang: "en" };
  assert.deepEqual(scrubEventBody(withExtra), {
    type: "text",
    content: PRIVATE_REDACTION,
    lang: "en",
  });
  const unknown = { type: "binary", content: "<private>x</private>" } as unknown as EventBody;
  const copy = scrubEventBody(unknown);
  assert.deepEqual(copy, unknown);
  assert.notEqual(copy, unknown);
});

const bodyArb: fc.Arbitrary<EventBody> = fc.oneof(
  fc.string().map((content): EventBody => ({ type: "text", content })),
  fc.array(fc.record({ role: fc.string({ minLength: 1 }), content: fc.string() }), {
    minLength: 1,
    maxLength: 4,
  }).map((turns): EventBody => ({ type: "message", turns })),
  anyJson.map((data): EventBody => ({ type: "json", data })),
);

Deno.test("property: scrubEventBody keeps the shape and never mutates the input", () => {
  fc.assert(
    fc.property(bodyArb, (body) => {
      const before = JSON.stringify(body);
      const out = scrubEventBody(body);
      assert.equal(JSON.stringify(body), before);
      assert.equal(out.type, body.type);
      if (out.type === "text" && body.type === "text") {
        assert.equal(out.content, scrubText(body.content));
      } else if (out.type === "message" && body.type === "message") {
        assert.deepEqual(
          out.turns,
          body.turns.map((turn) => ({ role: turn.role, content: scrubText(turn.content) })),
        );
      } else if (out.type === "json" && body.type === "json") {
        assert.deepEqual(out.data, scrubJson(body.data));
      } else {
        assert.fail("shape changed");
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("a <private> span that crosses strings is redacted on both sides, never half leaked", () => {
  const scrubbed = scrubJson({
    command: "deploy <private>hunter2",
    between: "a string with no tag",
    output: "still secret</private> done",
    after: "kept",
  });
  assert.deepEqual(scrubbed, {
    command: "deploy [REDACTED]",
    between: "a string with no tag",
    output: "[REDACTED] done",
    after: "kept",
  });
  assert.deepEqual(scrubJson(scrubbed), scrubbed, "scrubbing again changes nothing");
  const turns = scrubEventBody({
    type: "message",
    turns: [
      { role: "user", content: "key <private>abc" },
      { role: "assistant", content: "def</private> ok" },
    ],
  });
  assert.deepEqual(turns.turns.map((t) => t.content), ["key [REDACTED]", "[REDACTED] ok"]);
  // Without an opener, a closing tag alone hides nothing (as in one string).
  assert.deepEqual(scrubJson({ a: "x</private>y" }), { a: "x</private>y" });
});

Deno.test("scrubEventFields: the project path, session, actor and client ids are scrubbed too", () => {
  const token = GHP;
  const event = scrubEventFields({
    session_id: token,
    actor_id: "dev",
    source: {
      client_id: "host",
      version: "1",
      project_path: "/home/dev/<private>acme-secret-client</private>/app",
    },
    kept: "other fields untouched",
  });
  assert.equal(event.source.project_path, "/home/dev/[REDACTED]/app");
  assert.ok(!event.session_id.includes(token));
  assert.equal(event.actor_id, "dev");
  assert.equal(event.kept, "other fields untouched");
});

Deno.test("scrubEvent scrubs the body and the other fields together", () => {
  const event = scrubEvent({
    session_id: "s",
    actor_id: "dev",
    source: { client_id: "host", version: "1", project_path: "/p/<private>x</private>" },
    body: { type: "text" as const, content: `token ${GHP}` },
  });
  assert.equal(event.source.project_path, "/p/[REDACTED]");
  assert.ok(!event.body.content.includes(GHP));
});
