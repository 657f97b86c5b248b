/**
 * The viewer session as an alternative to the bearer token, and the extra rules it comes with.
 *
 * A cookie rides along with requests the browser makes on a page's behalf, so a request
 * authenticated only by the cookie must prove it comes from the viewer itself: a state-changing
 * one needs an `Origin` that is ours (the global guard only refuses a *foreign* Origin, and a
 * missing one is normal for curl), and a request the browser marks as cross-site or same-site
 * (another port on localhost is "same-site", and SameSite=Strict does not stop it) is refused.
 *
 * And on `/v1` a cookie is not enough: browsers send `127.0.0.1` cookies to every port, so any
 * local server a browser visits may receive it and replay it. A `/v1` request must also carry
 * the session's key ({@linkcode SESSION_KEY}), which the viewer's page holds and no other port
 * can read.
 *
 * @module
 */
import { errorResponse } from "../http/mod.ts";
import { timingSafeEqual } from "../runtime/mod.ts";
import { readCookie, SESSION_KEY, sessionCookieName, type SessionStore } from "./sessions.ts";

/** What the viewer session check needs. */
export interface SessionAccess {
  /** The session store. */
  sessions: SessionStore;
  /** The collector's port (names the cookie). */
  port: number;
  /** Our own origins (`http://127.0.0.1:<port>` and friends). */
  origins: Set<string>;
}

/**
 * `"ok"` when the request carries a live session and may use it, `"absent"` when it carries
 * none (or a dead one), or the response refusing a session used from the wrong place.
 */
export type SessionCheck = "ok" | "absent" | Response;

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** Options for {@linkcode checkSession}. */
export interface CheckSessionOptions {
  /**
   * Require the session's key besides the cookie (every `/v1` request). Pages do not: they are
   * empty shells that the API fills in.
   */
  requireKey?: boolean;
  /** The one path where the key may come in the query (the live feed: `EventSource`). */
  keyInQueryPath?: string;
}

/** Checks the viewer session cookie of `request` (and its key, when required). */
export function checkSession(
  request: Request,
  access: SessionAccess,
  options: CheckSessionOptions = {},
): SessionCheck {
  const session = readCookie(request.headers.get("cookie"), sessionCookieName(access.port));
  const key = session === null ? null : access.sessions.keyOf(session);
  if (session === null || key === null) return "absent";
  if (options.requireKey) {
    const presented = presentedKey(request, options.keyInQueryPath);
    if (presented === null || !timingSafeEqual(presented, key)) {
      return errorResponse(403, "viewer session key missing or wrong", {
        details: `a viewer session cookie alone does not open the API: send the session's key ` +
          `in ${SESSION_KEY.header} (the viewer's page does), or use the bearer token. ` +
          "In the browser, open the viewer again with `kiro-learn open`.",
      });
    }
  }
  if (!access.sessions.touch(session)) return "absent";
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    return errorResponse(403, "cross-origin request refused", {
      details: "the viewer session only works from the viewer's own pages",
    });
  }
  if (!SAFE_METHODS.has(request.method)) {
    const origin = request.headers.get("origin")?.toLowerCase();
    if (origin === undefined || !access.origins.has(origin)) {
      return errorResponse(403, "cross-origin request refused", {
        details: "a change made with the viewer session must come from the viewer's own origin",
      });
    }
  }
  return "ok";
}

function presentedKey(request: Request, keyInQueryPath: string | undefined): string | null {
  const header = request.headers.get(SESSION_KEY.header);
  if (header !== null) return header;
  if (keyInQueryPath === undefined || !SAFE_METHODS.has(request.method)) return null;
  const url = new URL(request.url);
  return url.pathname === keyInQueryPath ? url.searchParams.get(SESSION_KEY.query) : null;
}

/** The session id a request carries, whether live or not (for logout). */
export function sessionOf(request: Request, port: number): string | null {
  return readCookie(request.headers.get("cookie"), sessionCookieName(port));
}
