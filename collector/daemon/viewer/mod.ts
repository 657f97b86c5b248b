/**
 * The viewer: a web UI for the memory, served by the collector under `/ui`.
 *
 * Approach, and why: the collector renders a small page shell per URL with Hono JSX (already a
 * dependency, no extra package, no JSX build step: Deno compiles `.tsx` itself), and a
 * set of hand-written, dependency-free native ES modules (`static/js/`, entry `app.js`) fills it
 * in from the same JSON API the CLI and MCP use. There is no bundler, no npm front-end framework
 * and no CDN:
 *
 * - nothing to build or keep in sync: the files in `static/` are what the browser runs, so the
 *   daemon can serve them straight from disk with its read-only asset permission
 *   (`js/enums.js` is generated from the collector's constants by _enums.ts, and pinned to them);
 * - no external requests, which the Content-Security-Policy (`'self'` only) also enforces;
 * - the UI exercises the public API, so everything it shows is what `/v1` returns and the
 *   viewer cannot grow private back doors into storage;
 * - the pages are small (a few tables, a form, one SVG graph): a framework would cost more bytes
 *   and upgrade work than the DOM helpers it replaces.
 *
 * Access: a one-time code from `POST /v1/ui/codes` (bearer only; `kiro-learn open` asks for it)
 * travels in the login link's fragment (`/ui/login#code=…`, which no server, log or process list
 * sees); the login page posts it from the collector's own origin and gets an HttpOnly,
 * SameSite=Strict session cookie and, in the answer's body, the session's key, which it keeps in
 * its tab's `sessionStorage`. `/v1` accepts that cookie together with the key in place of the
 * bearer, with the extra origin rules in auth.ts. Nothing of a session is ever in `localStorage`
 * or in a page's HTML, so a page of this origin loaded earlier (say by another program that held
 * the port while the collector was down) has no way to read it.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { RECORD_ID_PATTERN } from "@kiro-learn/core/ids";
import { VERSION } from "@kiro-learn/core/version";
import type { EventBus } from "../runtime/mod.ts";
import { checkBearer, errorResponse, readJsonBody } from "../http/mod.ts";
import { checkSession, type SessionCheck, sessionOf } from "./auth.ts";
import {
  howToOpenPage,
  loginPage,
  NAV,
  notFoundPage,
  type PageName,
  shellPage,
} from "./_pages.tsx";
import {
  clearedSessionCookie,
  CODE_TTL_MS,
  LOGIN_PATH,
  loginLinkPath,
  sessionCookie,
  SessionStore,
  type SessionStoreOptions,
} from "./sessions.ts";
import { FeedHub, type FeedHubOptions } from "./sse.ts";
import { serveStatic, STATIC_ROOT } from "./_static.ts";

export { checkSession, type SessionCheck } from "./auth.ts";
export { LOGIN_PATH, loginLinkPath, SESSION_KEY, sessionCookieName } from "./sessions.ts";
export { SessionStore } from "./sessions.ts";
export { FeedHub } from "./sse.ts";

/** The mounted viewer. */
export interface Viewer {
  /** Routes to mount under `/v1`: `GET /feed` and `POST /ui/codes`. */
  api: Hono;
  /** Routes to mount under `/ui`: the pages, login, logout and static files. */
  pages: Hono;
  /** Checks a request's viewer session and its key (for the `/v1` auth middleware). */
  checkSession(request: Request): SessionCheck;
  /** Login codes and sessions. */
  sessions: SessionStore;
  /** Open live feeds (null when the collector has no bus). */
  feeds: FeedHub | null;
  /** Ends the live feeds; call before a graceful server shutdown, which would wait for them. */
  close(): void;
}

/** Options for {@linkcode createViewer}. */
export interface ViewerOptions {
  /** Our own origins (from security.ts `allowedOrigins`). */
  origins: Set<string>;
  /** Session store options (tests use a fake clock). */
  sessions?: SessionStoreOptions;
  /** Live feed options. */
  feed?: FeedHubOptions;
  /** Static root (tests point it at a temp dir). */
  staticRoot?: string;
}

/** The live feed's route in `api`, and its path once mounted under `/v1`. */
const FEED_ROUTE = "/feed";
const FEED_PATH = `/v1${FEED_ROUTE}`;

/** Headers for every HTML page: nothing but this origin may load, frame or be loaded. */
const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // Not `no-referrer`: with it, Chromium sends `Origin: null` on the page's own form posts
  // (sign out), which the origin check must refuse. Same-origin referrers leak nothing.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
  // No window that opened a viewer page (or that a page opened before it) keeps a handle on it,
  // even one of this origin that declared the same policy: another program serving pages on the
  // port while the collector was down is this origin too.
  "cross-origin-opener-policy": "noopener-allow-popups",
};

/** The login page's post: the one-time code from the link's fragment. */
const LoginRequestSchema = z.object({ code: z.string().min(1).max(200) });

/** What a login post may weigh (a code is 43 characters). */
const LOGIN_MAX_BYTES = 1024;

/** The pages the navigation links to, by path. */
const PAGES: Record<string, { page: PageName; title: string }> = Object.fromEntries(
  NAV.map((n) => [n.href, { page: n.page, title: n.label }]),
);

function page(body: string, status: 200 | 401 | 403 | 404, extra: Record<string, string> = {}) {
  return new Response(body, { status, headers: { ...PAGE_HEADERS, ...extra } });
}

/** What the viewer reads of the collector (the server hands it its whole context). */
export interface ViewerContext {
  /** Settings: the viewer reads only the port, which names the session cookie. */
  settings: { collector: { port: number } };
  /** Live events for the feed. */
  bus?: EventBus;
  /** The API token, accepted instead of a session. */
  token: string;
}

/** Builds the viewer for one collector. */
export function createViewer(ctx: ViewerContext, options: ViewerOptions): Viewer {
  const port = ctx.settings.collector.port;
  const sessions = new SessionStore(options.sessions);
  const feeds = ctx.bus ? new FeedHub(ctx.bus, options.feed) : null;
  const access = { sessions, port, origins: options.origins };
  const staticRoot = options.staticRoot ?? STATIC_ROOT;

  const api = new Hono();
  api.get(FEED_ROUTE, (c) => feeds ? feeds.open(c.req.raw) : errorResponse(503, "no live feed"));
  api.post("/ui/codes", (c) => {
    // Only the token holder (the CLI) may mint codes; a session must not extend itself.
    const refused = checkBearer(c.req.raw, ctx.token);
    if (refused) return refused;
    const { code, expires_at } = sessions.createCode();
    return c.json(
      {
        code,
        expires_at,
        expires_in_s: CODE_TTL_MS / 1000,
        path: loginLinkPath(code),
      },
      201,
      { "cache-control": "no-store" },
    );
  });

  const pages = new Hono();
  pages.get("/static/*", (c) => {
    const raw = new URL(c.req.url).pathname.slice("/ui/static/".length);
    return serveStatic(raw, { root: staticRoot, request: c.req.raw });
  });
  const login = LOGIN_PATH.slice("/ui".length);
  // The page is the same for everyone and holds nothing: it reads the code from its own URL's
  // fragment and posts it. The global guard lets a cross-site navigation reach it (the link
  // comes from a file:// page, see cli/open.ts).
  pages.get(login, () => page(loginPage({ version: VERSION }), 200));
  pages.post(login, async (c) => {
    // Only the login page itself may spend a code: the answer carries the session's key.
    const origin = c.req.header("origin")?.toLowerCase();
    const site = c.req.header("sec-fetch-site");
    if (origin === undefined || !options.origins.has(origin) || (site && site !== "same-origin")) {
      return errorResponse(403, "cross-origin request refused", {
        details: "a login code is spent by the viewer's own login page",
      });
    }
    const body = await readJsonBody(c.req.raw, { maxBytes: LOGIN_MAX_BYTES });
    if (!body.ok) return body.response;
    const parsed = LoginRequestSchema.safeParse(body.value);
    if (!parsed.success) {
      return errorResponse(400, "invalid login request", {
        details: 'send {"code": "<the code from the link kiro-learn open printed>"}',
      });
    }
    const session = sessions.redeem(parsed.data.code);
    if (session === null) {
      return errorResponse(403, "this link has expired or was already used", {
        details: "viewer links work once and only for 60 seconds: run `kiro-learn open` again",
        headers: { "cache-control": "no-store" },
      });
    }
    return new Response(JSON.stringify({ session_key: sessions.keyOf(session)! }), {
      status: 200,
      headers: {
        "content-type": "application/json",
        "set-cookie": sessionCookie(port, session),
        "cache-control": "no-store",
      },
    });
  });
  pages.post("/logout", (c) => {
    const checked = checkSession(c.req.raw, access);
    if (checked instanceof Response) return checked;
    const session = sessionOf(c.req.raw, port);
    if (session !== null) sessions.revoke(session);
    return new Response(null, {
      status: 303,
      headers: { location: "/ui", "set-cookie": clearedSessionCookie(port) },
    });
  });
  pages.get("*", (c) => {
    const checked = checkSession(c.req.raw, access);
    if (checked instanceof Response) return checked;
    if (checked === "absent") return page(howToOpenPage({ version: VERSION }), 401);
    const path = c.req.path.replace(/\/+$/, "") || "/ui";
    const known = PAGES[path];
    if (known) return page(shellPage({ ...known, version: VERSION }), 200);
    const memory = /^\/ui\/memories\/([^/]+)$/.exec(path);
    if (memory && RECORD_ID_PATTERN.test(memory[1])) {
      return page(
        shellPage({ page: "memory", title: "Memory", version: VERSION, recordId: memory[1] }),
        200,
      );
    }
    return page(notFoundPage({ version: VERSION }), 404);
  });
  pages.all("*", () => errorResponse(405, "method not allowed", { headers: { allow: "GET" } }));

  return {
    api,
    pages,
    checkSession: (request) =>
      checkSession(request, access, { requireKey: true, keyInQueryPath: FEED_PATH }),
    sessions,
    feeds,
    close: () => feeds?.closeAll(),
  };
}
