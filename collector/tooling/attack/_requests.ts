/**
 * Attacks over HTTP on a real collector: the auth matrix, foreign Hosts, cross-site Origins,
 * path traversal, hostile bodies, deep JSON, NUL and lone surrogates, and a replayed viewer
 * cookie. Each answers a figure: requests tried, how many were refused (or handled) as they must
 * be, and what they got.
 *
 * @module
 */
import { makeEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { MAX_JSON_DEPTH } from "../../daemon/http/mod.ts";
import { SESSION_KEY } from "../../daemon/viewer/mod.ts";
import {
  badCredentials,
  fuzzEventBodies,
  postJson,
  rawHttp,
  rawStatus,
  routeRequest,
  type TestDaemon,
  V1_ROUTES,
  viewerLogin,
} from "../testing/mod.ts";
import { type AttackFigure, Tally } from "./_figure.ts";

/** The viewer pages, which need a session. */
const UI_PAGES = ["/ui", "/ui/feed", "/ui/memories", "/ui/injections", "/ui/graph"];

/** What an intruder would want unchanged: the event count and one record, as JSON. */
async function snapshot(daemon: TestDaemon, recordId: string): Promise<string> {
  const stats = await (await daemon.fetch("/v1/stats")).json();
  const record = await (await daemon.fetch(`/v1/memories/${recordId}`)).text();
  return JSON.stringify([stats.total_events, stats.total_memories, record]);
}

/** Every /v1 route with each wrong credential, and every viewer page without a session. */
export async function authMatrix(daemon: TestDaemon, target: string): Promise<AttackFigure> {
  const tally = new Tally();
  const before = await snapshot(daemon, target);
  for (const route of V1_ROUTES) {
    for (const [what, headers] of badCredentials(daemon)) {
      const res = await routeRequest(daemon, route, { id: target, headers });
      await res.body?.cancel();
      tally.add(res.status === 401, String(res.status), `${route.method} ${route.route}, ${what}`);
    }
  }
  for (const path of UI_PAGES) {
    const res = await fetch(daemon.url + path);
    await res.body?.cancel();
    tally.add(res.status === 401, String(res.status), `GET ${path} without a session`);
  }
  tally.check(before === await snapshot(daemon, target), "something was stored or changed");
  return tally.figure(
    "auth matrix (every /v1 route × no/wrong token, every page without a session)",
    "nothing stored or changed",
  );
}

/** Requests addressed to other hosts (DNS rebinding), with the right token. */
export async function foreignHost(daemon: TestDaemon): Promise<AttackFigure> {
  const tally = new Tally();
  const port = daemon.port;
  const hosts = [
    "attacker.example",
    `attacker.example:${port}`,
    `127.0.0.1.nip.io:${port}`,
    `localhost.attacker.example:${port}`,
    `127.0.0.1:${port + 1}`,
    `127.0.0.1`,
    `0.0.0.0:${port}`,
    `127.0.0.2:${port}`,
    `LOCALHOST.:${port}`,
    "",
  ];
  const paths = ["/v1/stats", "/v1/memories?limit=1", "/v1/feed", "/ui", "/ui/login?code=x"];
  for (const host of hosts) {
    for (const path of paths) {
      const raw = await rawHttp(port, {
        path,
        host,
        headers: { authorization: `Bearer ${daemon.token}` },
      });
      const status = rawStatus(raw);
      tally.add(status === 403 || status === 400, String(status), `Host ${host} ${path}`);
    }
  }
  return tally.figure("foreign Host (DNS rebinding)");
}

/** Requests from other origins, with the right token, reading and changing. */
export async function crossSiteOrigin(daemon: TestDaemon, target: string): Promise<AttackFigure> {
  const tally = new Tally();
  const before = await snapshot(daemon, target);
  const origins = [
    "https://attacker.example",
    "null",
    `http://127.0.0.1:${daemon.port + 1}`,
    `http://attacker.example:${daemon.port}`,
    `http://localhost.attacker.example:${daemon.port}`,
    `https://127.0.0.1:${daemon.port}`,
  ];
  const requests: [string, string, unknown?][] = [
    ["GET", "/v1/stats"],
    ["GET", "/v1/memories?limit=5"],
    ["POST", "/v1/events", makeEvent()],
    ["POST", "/v1/memories", makeRecord()],
    ["PATCH", `/v1/memories/${target}`, { title: "changed from another site" }],
    ["DELETE", `/v1/memories/${target}`],
    ["POST", `/v1/extraction/flush?project_id=${"a".repeat(64)}`],
    ["POST", "/v1/ui/codes"],
  ];
  for (const origin of origins) {
    for (const [method, path, body] of requests) {
      const res = await daemon.fetch(path, {
        method,
        headers: { origin, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      await res.body?.cancel();
      tally.add(res.status === 403, String(res.status), `${method} ${path} from ${origin}`);
    }
  }
  tally.check(before === await snapshot(daemon, target), "something was stored or changed");
  return tally.figure("cross-site Origin (with the token)", "nothing stored or changed");
}

/** What a file outside the static folder would show if it were served. */
const FILE_MARKERS = [
  "createViewer",
  "ALLOWED_METHODS",
  "root:x:0",
  "SQLite format 3",
  '"backend"',
  "PRIVATE KEY",
];

/** Raw paths that climb out of the static folder (and the others), spelled every way. */
export async function pathTraversal(daemon: TestDaemon): Promise<AttackFigure> {
  const tally = new Tally();
  const prefixes = ["/ui/static/", "/ui/static/js/", "/ui/", "/", "/v1/memories/", "/ui/memories/"];
  const ups = [
    "../",
    "..%2f",
    "%2e%2e/",
    "%2e%2e%2f",
    "..%5c",
    "..\\",
    "%252e%252e%252f",
    "....//",
    "..;/",
    "%c0%ae%c0%ae/",
    ".%2e/",
  ];
  const targets = [
    "mod.ts",
    "server/app.ts",
    "etc/passwd",
    "token",
    "settings.json",
    "kiro-learn.db",
  ];
  const secrets = [daemon.token, ...FILE_MARKERS];
  for (const prefix of prefixes) {
    for (const up of ups) {
      for (let depth = 1; depth <= 4; depth++) {
        for (const target of targets) {
          const path = prefix + up.repeat(depth) + target;
          const raw = await rawHttp(daemon.port, {
            path,
            headers: { authorization: `Bearer ${daemon.token}` },
          });
          const status = rawStatus(raw);
          const leaked = secrets.find((s) => raw.includes(s));
          tally.add(
            !leaked && status !== 200 && status < 500,
            String(status),
            `${path}: ${status}${leaked ? ` showing ${leaked}` : ""}`,
          );
        }
      }
    }
  }
  return tally.figure("path traversal (raw paths)", "no file content served");
}

/** Hostile bodies for POST /v1/events: never a 5xx, never anything invalid stored. */
export async function hostileBodies(daemon: TestDaemon): Promise<AttackFigure> {
  const tally = new Tally();
  const report = await fuzzEventBodies(daemon, { runs: 200, seed: 13 });
  for (const [status, n] of Object.entries(report.statuses)) {
    for (let i = 0; i < n; i++) tally.add(Number(status) < 500, status, `a ${status}`);
  }
  tally.check(report.invalidStored === 0, `${report.invalidStored} invalid events stored`);
  return tally.figure("hostile-body fuzz (fast-check)", "no 5xx, nothing invalid stored");
}

function nested(depth: number, shape: "array" | "object"): string {
  return shape === "array"
    ? "[".repeat(depth) + "]".repeat(depth)
    : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** JSON nested past the limit, alone and inside a valid event, on every JSON route. */
export async function deepJson(daemon: TestDaemon, target: string): Promise<AttackFigure> {
  const tally = new Tally();
  const depths = [MAX_JSON_DEPTH + 1, 1_000, 5_000, 100_000, 400_000];
  const routes: [string, string][] = [
    ["POST", "/v1/events"],
    ["POST", "/v1/memories"],
    ["PATCH", `/v1/memories/${target}`],
  ];
  for (const depth of depths) {
    for (const shape of ["array", "object"] as const) {
      const inner = nested(depth, shape);
      const event = makeEvent();
      const bodies = [
        inner,
        JSON.stringify({ ...event, body: { type: "json", data: { x: "PLACEHOLDER" } } })
          .replace('"PLACEHOLDER"', inner),
      ];
      for (const [method, path] of routes) {
        for (const body of bodies) {
          const res = await daemon.fetch(path, {
            method,
            headers: { "content-type": "application/json" },
            body,
          });
          const answer = await res.json().catch(() => ({}));
          const clear = (res.status === 400 && answer.error === "JSON nested too deeply") ||
            (res.status === 413 && answer.error === "request body too large");
          const label = `${res.status} ${answer.error ?? ""}`.trim();
          tally.add(clear, label, `${method} ${path} depth ${depth} ${shape}: ${label}`);
        }
      }
    }
  }
  const health = await daemon.fetch("/healthz");
  await health.body?.cancel();
  tally.check(health.ok, "the collector stopped answering");
  return tally.figure("deep JSON", "the collector kept answering");
}

/** Strings with NUL or a lone surrogate, in every field kind: stored exactly, or a clear 400. */
export async function nulAndSurrogates(daemon: TestDaemon): Promise<AttackFigure> {
  const tally = new Tally();
  const strings = ["a\u0000b", "\u0000", "x\ud800y", "\udfff", "end\ud83d", "\ud83d\ud83d"];
  for (const bad of strings) {
    const cases: [string, string, unknown, (stored: Record<string, unknown>) => unknown][] = [
      [
        "event body",
        "/v1/events",
        makeEvent({ body: { type: "text", content: `t ${bad}` } }),
        (e) => (e.body as { content: string }).content,
      ],
      [
        "event json key",
        "/v1/events",
        makeEvent({ body: { type: "json", data: { [`k${bad}`]: 1 } } }),
        (e) => Object.keys((e.body as { data: object }).data)[0],
      ],
      [
        "session id",
        "/v1/events",
        makeEvent({ session_id: `s${bad}` }),
        (e) => e.session_id,
      ],
      [
        "project path",
        "/v1/events",
        makeEvent({
          source: {
            surface: "kiro-cli",
            version: "0.1.0",
            client_id: "h",
            project_path: `/p${bad}`,
          },
        }),
        (e) => (e.source as { project_path: string }).project_path,
      ],
      [
        "memory title",
        "/v1/memories",
        makeRecord({ title: `t ${bad}` }),
        (r) => r.title,
      ],
    ];
    for (const [field, path, body, read] of cases) {
      const res = await postJson(daemon, path, body);
      const answer = await res.json().catch(() => ({}));
      const id = body as { event_id?: string; record_id?: string };
      if (res.status === 400) {
        const clear = /NUL|surrogate/i.test(`${answer.error} ${JSON.stringify(answer.details)}`);
        tally.add(clear, "400 refused", `${field} ${JSON.stringify(bad)}: ${answer.error}`);
        continue;
      }
      const sent = read(body as Record<string, unknown>);
      let back: unknown;
      if (res.ok && id.record_id) {
        back = read((await (await daemon.fetch(`/v1/memories/${id.record_id}`)).json()).record);
      } else if (res.ok) {
        const listed = await (await daemon.fetch("/v1/events?limit=50")).json();
        const event = listed.items.find((e: { event_id: string }) => e.event_id === id.event_id);
        back = event ? read(event) : undefined;
      }
      tally.add(
        res.ok && back === sent,
        res.ok ? (back === sent ? "round-trip" : "changed") : String(res.status),
        `${field} ${JSON.stringify(bad)}: ${res.status}, read back ${JSON.stringify(back)}`,
      );
    }
  }
  // In a query string too: the search must refuse or answer, never fail.
  for (const bad of ["a%00b", "%ED%A0%80", "%00"]) {
    const res = await daemon.fetch(
      `/v1/memories/search?namespace=${encodeURIComponent(TEST_NAMESPACE)}&query=${bad}`,
    );
    await res.body?.cancel();
    tally.add(
      res.status === 200 || res.status === 400,
      `search query ${res.status}`,
      `query ${bad}: ${res.status}`,
    );
  }
  return tally.figure("NUL and lone surrogates");
}

/** A live viewer cookie replayed by another client: on every route and the feed. */
export async function cookieReplay(daemon: TestDaemon, target: string): Promise<AttackFigure> {
  const tally = new Tally();
  const before = await snapshot(daemon, target);
  const { cookie } = await viewerLogin(daemon);
  const replays: [string, Record<string, string>][] = [
    ["the cookie", { cookie }],
    ["the cookie and the collector's Origin", { cookie, origin: daemon.url }],
    ["the cookie and a guessed key", { cookie, [SESSION_KEY.header]: "guessed" }],
    ["the cookie as the key", {
      cookie,
      [SESSION_KEY.header]: cookie.slice(cookie.indexOf("=") + 1),
    }],
  ];
  for (const route of V1_ROUTES) {
    for (const [what, headers] of replays) {
      const res = await routeRequest(daemon, route, { id: target, headers });
      await res.body?.cancel();
      tally.add(
        res.status === 403 || res.status === 401,
        String(res.status),
        `${route.method} ${route.route} with ${what}`,
      );
    }
  }
  for (const key of ["", "guessed", "a".repeat(43)]) {
    const res = await fetch(`${daemon.url}/v1/feed?${SESSION_KEY.query}=${key}`, {
      headers: { cookie },
    });
    await res.body?.cancel();
    tally.add(res.status === 403, String(res.status), `the feed with key ${key || "(none)"}`);
  }
  tally.check(before === await snapshot(daemon, target), "something was stored or changed");
  return tally.figure("viewer cookie replay (from a non-browser client)", "nothing changed");
}

/** Every HTTP attack against `daemon`, in order. */
export async function requestAttacks(daemon: TestDaemon): Promise<AttackFigure[]> {
  const record = makeRecord({ title: "the record intruders aim at" });
  const saved = await postJson(daemon, "/v1/memories", record);
  if (!saved.ok) throw new Error(`seeding the target record: ${saved.status}`);
  await saved.body?.cancel();
  const target = record.record_id;
  return [
    await authMatrix(daemon, target),
    await foreignHost(daemon),
    await crossSiteOrigin(daemon, target),
    await cookieReplay(daemon, target),
    await pathTraversal(daemon),
    await hostileBodies(daemon),
    await deepJson(daemon, target),
    await nulAndSurrogates(daemon),
  ];
}
