import assert from "node:assert/strict";
import { EventSchema } from "@kiro-learn/core/schemas";
import { ULID_PATTERN, ulidTime } from "@kiro-learn/core/ids";
import {
  FIRING_ARG,
  firingFromArgs,
  hookEvent,
  hookEventId,
  parseFiring,
  planEvents,
} from "./event.ts";
import type { HookPlan } from "./plan.ts";

const FIRING = "1764000000123456789-4242";
const PLAN: HookPlan = {
  surface: "claude-code",
  hook: "PostToolUse",
  sessionId: "s-1",
  cwd: "/srv/app/src",
  events: [{
    kind: "tool_use",
    body: { type: "json", data: { tool_name: "Bash" } },
    query: "",
    print: false,
  }],
  timeout: "store",
};
const PROJECT = { root: "/srv/app", namespace: `/actor/dev/project/${"a".repeat(64)}/` };

Deno.test("parseFiring: `<nanoseconds>-<pid>` from the launcher, else null", () => {
  assert.deepEqual(parseFiring(FIRING), { ms: 1764000000123, key: FIRING });
  // BSD date prints `%N` literally: the launcher sends no key then, and ids are fresh.
  for (const bad of ["", "1764000000N-42", "1764000000123456789", "-42", "x-1", null, undefined]) {
    assert.equal(parseFiring(bad), null, String(bad));
  }
  assert.deepEqual(firingFromArgs(["--no-wait", `${FIRING_ARG}${FIRING}`]), parseFiring(FIRING));
  assert.equal(firingFromArgs(["--firing=oops"]), null);
  assert.equal(firingFromArgs([]), null);
});

Deno.test("hookEventId: one id per firing, hook and index, at the firing's time", () => {
  const firing = parseFiring(FIRING)!;
  const id = hookEventId(PLAN, { index: 0, firing });
  assert.match(id, ULID_PATTERN);
  assert.equal(ulidTime(id), firing.ms);
  assert.equal(hookEventId(PLAN, { index: 0, firing }), id, "a retry is the same event");
  const others = [
    hookEventId(PLAN, { index: 1, firing }),
    hookEventId({ ...PLAN, hook: "Stop" }, { index: 0, firing }),
    hookEventId({ ...PLAN, sessionId: "s-2" }, { index: 0, firing }),
    hookEventId(PLAN, { index: 0, firing: parseFiring("1764000000123456789-4243") }),
  ];
  assert.equal(new Set([id, ...others]).size, 5);
  assert.notEqual(hookEventId(PLAN, { index: 0 }), hookEventId(PLAN, { index: 0 }));
});

Deno.test("hookEvent builds a schema-valid event; a body over the cap is cut and reported", () => {
  const warned: string[] = [];
  const event = hookEvent({ kind: "prompt", body: { type: "text", content: "é".repeat(5000) } }, {
    surface: "claude-code",
    sessionId: "s".repeat(300),
    project: PROJECT,
    actor: "dev",
    clientId: "box",
    maxBodyBytes: 4096,
    now: new Date("2026-01-02T03:04:05.000Z"),
    warn: (m) => warned.push(m),
  });
  assert.equal(EventSchema.safeParse(event).success, true);
  assert.equal(event.session_id.length, 128);
  assert.equal(event.namespace, PROJECT.namespace);
  assert.equal(event.source.project_path, "/srv/app");
  assert.equal(event.source.client_id, "box");
  assert.equal(event.valid_time, "2026-01-02T03:04:05.000Z");
  assert.equal(warned.length, 1);
  assert.match(warned[0], /prompt body over 4096 bytes: truncated/);
});

Deno.test("planEvents: ids from the firing, the project of each cwd, a cut body scrubbed first", async () => {
  const firing = parseFiring(FIRING);
  const cwds: string[] = [];
  const secret = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";
  const plan: HookPlan = {
    ...PLAN,
    events: [
      PLAN.events[0],
      {
        kind: "prompt",
        body: { type: "text", content: "x".repeat(4080) + secret },
        query: "retrieve",
        print: true,
        cwd: "/srv/app/lib",
      },
    ],
  };
  const options = {
    project: (cwd: string) => (cwds.push(cwd), PROJECT),
    actor: "dev",
    clientId: "box",
    maxBodyBytes: 4096,
    firing,
  };
  const first = await planEvents(plan, options);
  const again = await planEvents(plan, options);
  assert.deepEqual(first.map((d) => d.event.event_id), again.map((d) => d.event.event_id));
  assert.deepEqual(first.map((d) => d.query), ["", "retrieve"]);
  assert.deepEqual(cwds.slice(0, 2), ["/srv/app/src", "/srv/app/lib"]);
  const cut = JSON.stringify(first[1].event.body);
  assert.ok(!cut.includes("ghp_"), "no fragment of the secret survives the cut");
  // Valid when the hook fired, not when the (perhaps background, perhaps late) delivery ran:
  // events are listed by valid time, so they keep the order Claude Code fired their hooks in.
  for (const { event } of first) assert.equal(event.valid_time, new Date(firing!.ms).toISOString());
  const unkeyed = await planEvents(plan, { ...options, firing: null });
  assert.ok(Date.parse(unkeyed[0].event.valid_time) > firing!.ms);
});
