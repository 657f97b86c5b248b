/**
 * Debian's headless Chromium through playwright-core, for the viewer's browser tests and the
 * attack suite, and a cross-site page: another loopback origin whose script attacks the
 * collector with the browser's own cookie jar.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Response as PageResponse,
} from "playwright-core";

/** Where the test command installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Fails, with how to fix it, when Chromium is missing: a browser test is never skipped. */
export function requireChromium(): void {
  let found = false;
  try {
    found = Deno.statSync(CHROMIUM).isFile;
  } catch {
    // Not installed.
  }
  assert.ok(
    found,
    `headless Chromium is missing (${CHROMIUM}): install it with \`apt-get install chromium\` ` +
      "(`deno task test` installs it when it may) and run the tests again",
  );
}

/** Launches headless Chromium with nothing that talks to the network on its own. */
export function launchChromium(): Promise<Browser> {
  requireChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** What a cross-site page's requests to the collector got. */
export interface CrossSiteOutcome {
  /** The attacking page's origin. */
  origin: string;
  /** The status of every response to the page's fetches the browser saw. */
  statuses: number[];
  /** The status of every form post's response, in the order they came. */
  formStatuses: number[];
}

/** An HTML form the cross-site page submits (each into its own frame). */
export interface CrossSiteForm {
  /** The collector path it posts to. */
  path: string;
  /** Its fields, name → value. */
  fields: Record<string, string>;
  /** Its enctype (default `application/x-www-form-urlencoded`). */
  enctype?: string;
}

/**
 * Serves a page on another loopback origin whose script sends each of `requests` to the
 * collector at `target` with `credentials: "include"` (so the browser attaches its session
 * cookie: another port on 127.0.0.1 is the same site) and submits each of `forms` into a frame
 * of its own, opens it in `context` and waits until every request has settled.
 */
export async function crossSiteAttack(
  context: BrowserContext,
  options: {
    target: string;
    requests: { path: string; init: RequestInit }[];
    forms?: CrossSiteForm[];
  },
): Promise<CrossSiteOutcome> {
  const calls = options.requests.map(({ path, init }) =>
    `fetch(base + ${JSON.stringify(path)}, ${JSON.stringify({ ...init, credentials: "include" })})`
  );
  const attr = (v: string) => v.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  const forms = (options.forms ?? []).map((form, i) =>
    `<iframe name="f${i}"></iframe><form id="form${i}" target="f${i}" method="post" ` +
    `action="${attr(options.target + form.path)}" enctype="${
      attr(form.enctype ?? "application/x-www-form-urlencoded")
    }">` +
    Object.entries(form.fields).map(([k, v]) =>
      `<input type="hidden" name="${attr(k)}" value="${attr(v)}">`
    ).join("") + "</form>"
  );
  const attacker = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(
        `<!doctype html>${forms.join("")}<script>
          const base = ${JSON.stringify(options.target)};
          const frames = [...document.querySelectorAll("iframe")].map((f) =>
            new Promise((resolve) => f.addEventListener("load", resolve, { once: true }))
          );
          document.querySelectorAll("form").forEach((f) => f.submit());
          Promise.allSettled([${calls.join(",\n")}, ...frames])
            .finally(() => { document.title = "done"; });
        </script>`,
        { headers: { "content-type": "text/html" } },
      ),
  );
  const origin = `http://127.0.0.1:${attacker.addr.port}`;
  const statuses: number[] = [];
  const formStatuses: number[] = [];
  try {
    const page = await context.newPage();
    page.on("response", (r: PageResponse) => {
      if (!r.url().startsWith(options.target)) return;
      (r.request().isNavigationRequest() ? formStatuses : statuses).push(r.status());
    });
    await page.goto(origin + "/");
    // The attacker page has no CSP, so a string predicate may be evaluated there.
    await page.waitForFunction(`document.title === "done"`);
    // A frame's first load may be its blank document: wait for the posts' own answers too.
    const forms = options.forms?.length ?? 0;
    for (let i = 0; i < 200 && formStatuses.length < forms; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.close();
  } finally {
    await attacker.shutdown();
  }
  return { origin, statuses, formStatuses };
}
