/**
 * Attacks through a real browser (Debian's headless Chromium, driven by playwright-core) logged
 * in to the viewer: CSRF from a page on another loopback origin, which the browser sends the
 * session cookie with, and stored XSS: script-bearing text in every field a page shows.
 *
 * @module
 */
import type { BrowserContext, Page } from "playwright-core";
import { makeEvent, makeRecord } from "@kiro-learn/core/testing";
import {
  crossSiteAttack,
  type CrossSiteForm,
  launchChromium,
  postJson,
  startTestDaemon,
  type TestDaemon,
} from "../testing/mod.ts";
import { type AttackFigure, Tally } from "./_figure.ts";

/** Logs `context` in to the viewer the way `kiro-learn open`'s link does. */
async function login(daemon: TestDaemon, context: BrowserContext): Promise<Page> {
  const minted = await daemon.fetch("/v1/ui/codes", { method: "POST" });
  const { path } = await minted.json();
  const page = await context.newPage();
  const res = await page.goto(daemon.url + path);
  if (res?.status() !== 200) throw new Error(`viewer login answered ${res?.status()}`);
  // The login page posts the code from the fragment, then goes on to the overview.
  await page.waitForURL(`${daemon.url}/ui`, { timeout: 15_000 });
  await ready(page);
  return page;
}

async function ready(page: Page): Promise<void> {
  await page.waitForSelector("main[data-ready=true]", { timeout: 15_000 });
}

async function state(daemon: TestDaemon, id: string): Promise<string> {
  const stats = await (await daemon.fetch("/v1/stats")).json();
  const record = await (await daemon.fetch(`/v1/memories/${id}`)).text();
  return JSON.stringify([stats.total_events, stats.total_memories, record]);
}

/** A logged-in browser visits a page on another loopback origin that attacks the collector. */
async function csrf(daemon: TestDaemon, context: BrowserContext): Promise<AttackFigure> {
  const tally = new Tally();
  const target = makeRecord({ title: "the record a cross-site page aims at" });
  await (await postJson(daemon, "/v1/memories", target)).body?.cancel();
  const before = await state(daemon, target.record_id);
  const planted = makeRecord({ title: "planted by another origin" });
  const event = makeEvent();
  const id = target.record_id;
  const text = (body: unknown) => ({
    method: "POST",
    mode: "no-cors" as const,
    headers: { "content-type": "text/plain" },
    body: JSON.stringify(body),
  });
  const requests = [
    { path: "/v1/memories", init: text(planted) },
    { path: "/v1/events", init: text(event) },
    { path: `/v1/extraction/flush?project_id=${"a".repeat(64)}`, init: text({}) },
    { path: "/v1/ui/codes", init: text({}) },
    { path: `/v1/memories/${id}`, init: { method: "DELETE" } },
    { path: `/v1/memories/${id}`, init: { method: "PATCH", body: '{"title":"x"}' } },
    { path: "/v1/memories", init: { method: "POST", body: JSON.stringify(planted) } },
    { path: "/v1/memories?limit=5", init: { method: "GET" } },
    { path: "/v1/stats", init: { method: "GET" } },
    { path: "/v1/events?limit=5", init: { method: "GET", mode: "no-cors" as const } },
    { path: "/ui/logout", init: { method: "POST", mode: "no-cors" as const } },
  ];
  // The classic JSON-by-form trick: a text/plain form whose one field spells a JSON body.
  const json = JSON.stringify(planted);
  const forms: CrossSiteForm[] = [
    {
      path: "/v1/memories",
      fields: { [json.slice(0, -1) + ',"x":"']: '"}' },
      enctype: "text/plain",
    },
    {
      path: "/v1/events",
      fields: { [JSON.stringify(event).slice(0, -1) + ',"x":"']: '"}' },
      enctype: "text/plain",
    },
    { path: `/v1/memories/${id}`, fields: { _method: "DELETE" } },
    { path: "/v1/ui/codes", fields: {} },
    { path: "/ui/logout", fields: {} },
  ];
  const attack = await crossSiteAttack(context, { target: daemon.url, requests, forms });
  // A request the browser would not send (a failed preflight) has no response to count.
  for (const status of attack.statuses) {
    tally.add(status === 403, String(status), `a cross-site request got ${status}`);
  }
  for (let i = attack.statuses.length; i < requests.length; i++) {
    tally.add(true, "not sent (failed preflight)");
  }
  for (const status of attack.formStatuses) {
    tally.add(status === 403, `form ${status}`, `a cross-site form post got ${status}`);
  }
  for (let i = attack.formStatuses.length; i < forms.length; i++) {
    tally.add(false, "form unanswered", "a form post got no answer: the attack proves nothing");
  }
  tally.check(before === await state(daemon, id), "something was stored, changed or deleted");
  const planted404 = await daemon.fetch(`/v1/memories/${planted.record_id}`);
  await planted404.body?.cancel();
  tally.check(planted404.status === 404, "the planted record was stored");
  // The session still works: the page's own logout was refused too.
  const page = await context.newPage();
  const still = await page.goto(daemon.url + "/ui");
  tally.check(
    still?.status() === 200,
    `the session was ended from another site (${still?.status()})`,
  );
  await page.close();
  return tally.figure(
    `CSRF from Chromium (${requests.length} fetches, ${forms.length} form posts)`,
    "nothing stored, changed or deleted; the session still open",
  );
}

/** Script-bearing text; each carries `data-xss`, so a parsed one is found in the DOM. */
function payloads(beacon: string): string[] {
  return [
    `<img data-xss src=x onerror="alert('img')">`,
    `<script data-xss>alert('script')</script>`,
    `"><svg data-xss onload=alert('svg')>`,
    `'><iframe data-xss src="javascript:alert('iframe')"></iframe>`,
    `</textarea><img data-xss src=x onerror=alert('textarea')>`,
    `<a data-xss href="javascript:alert('link')">click</a>`,
    `javascript:alert('href')`,
    `<img data-xss src="${beacon}">`,
    `{{constructor.constructor('alert(1)')()}}\${alert('template')}`,
    `<style data-xss>*{background:url(${beacon})}</style>`,
  ];
}

/** Stores script-bearing text in every field, then visits every page that shows it. */
async function storedXss(daemon: TestDaemon, context: BrowserContext): Promise<AttackFigure> {
  const tally = new Tally();
  let beaconHits = 0;
  const beacon = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    beaconHits++;
    return new Response("");
  });
  const list = payloads(`http://127.0.0.1:${beacon.addr.port}/hit`);
  const ns = `/actor/tester/project/${"c".repeat(64)}/`;
  const records: string[] = [];
  let fields = 0;
  try {
    for (const [i, p] of list.entries()) {
      const event = makeEvent({
        namespace: ns,
        session_id: `s-${i}-${p}`.slice(0, 200),
        kind: "tool_use",
        body: { type: "json", data: { tool_name: p, tool_input: { [p]: p }, tool_response: p } },
        source: { surface: "kiro-cli", version: "0.1.0", client_id: p, project_path: `/tmp/${p}` },
      });
      const record = makeRecord({
        namespace: ns,
        title: `xss ${i} ${p}`.slice(0, 200),
        summary: p,
        facts: [p, `fact ${p}`],
        concepts: [p.slice(0, 100)],
        files_touched: [p, `src/${p}.ts`],
        source_event_ids: [event.event_id],
      });
      for (const [path, body] of [["/v1/events", event], ["/v1/memories", record]] as const) {
        const res = await postJson(daemon, path, body);
        await res.body?.cancel();
        if (!res.ok) throw new Error(`storing payload ${i} at ${path}: ${res.status}`);
      }
      fields += 11;
      records.push(record.record_id);
      // A prompt that injects it, for the injections page.
      const prompt = makeEvent({ namespace: ns, body: { type: "text", content: `xss ${i} ${p}` } });
      await (await postJson(daemon, "/v1/events?retrieve=true", prompt)).body?.cancel();
      fields++;
    }
    const dialogs: string[] = [];
    const page = await login(daemon, context);
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
    const pages = [
      "/ui",
      "/ui/feed",
      "/ui/memories",
      `/ui/memories?project=${encodeURIComponent(ns)}`,
      ...list.map((p) => `/ui/memories?q=${encodeURIComponent(p)}`),
      "/ui/injections",
      "/ui/graph",
      ...records.map((id) => `/ui/memories/${id}`),
    ];
    for (const path of pages) {
      await page.goto(daemon.url + path);
      await ready(page);
      if (path === "/ui/feed") {
        // A live event carrying every payload, arriving while the feed is open.
        await page.waitForSelector('[data-testid="feed-status"][data-state="open"]');
        const live = makeEvent({ namespace: ns, body: { type: "text", content: list.join(" ") } });
        await (await postJson(daemon, "/v1/events", live)).body?.cancel();
        await page.getByTestId("feed-list").getByText("xss", { exact: false }).first()
          .waitFor({ timeout: 10_000 }).catch(() => {});
      }
      if (path.startsWith("/ui/memories/mr_")) {
        // The edit form puts the text in inputs and a textarea.
        await page.getByRole("button", { name: "Edit", exact: true }).click();
        await page.getByTestId("edit-form").waitFor();
      }
      const injected = await page.locator("[data-xss]").count();
      const jsLinks = await page.locator('[href^="javascript:" i], [src^="javascript:" i]').count();
      tally.add(
        injected + jsLinks === 0,
        injected + jsLinks === 0 ? "rendered as text" : "markup injected",
        `${path}: ${injected} injected elements, ${jsLinks} javascript: links`,
      );
    }
    tally.check(dialogs.length === 0, `scripts ran: ${dialogs.join(", ")}`);
    tally.check(beaconHits === 0, `the beacon was loaded ${beaconHits} times`);
    return tally.figure(
      `stored XSS (${list.length} payloads in ${fields} stored fields, ${pages.length} page views)`,
      `${dialogs.length} scripts ran, ${beaconHits} beacon loads`,
    );
  } finally {
    await beacon.shutdown();
  }
}

/** CSRF and stored XSS, each on a collector of its own, in one browser. */
export async function browserAttacks(): Promise<AttackFigure[]> {
  const browser = await launchChromium();
  try {
    const figures: AttackFigure[] = [];
    for (const attack of [csrf, storedXss]) {
      await using daemon = await startTestDaemon();
      const context = await browser.newContext();
      try {
        await login(daemon, context);
        figures.push(await attack(daemon, context));
      } finally {
        await context.close();
      }
    }
    return figures;
  } finally {
    await browser.close();
  }
}
