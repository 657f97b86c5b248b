/**
 * The viewer session as an alternative to the bearer token, and the extra rules it comes with.
 *
 * A cookie rides along with requests the browser makes on a page's behalf, so a request
 * authenticated only by the cookie must prove it comes from the viewer itself: a state-changing
 * one needs an `Origin` that is ours (the global guard only refuses a *foreign* Origin, and a
 * missing one is normal for curl), and a request the browser marks as cross-site or same-site
 * (another port on localhost is "same-site", and SameSite=Strict does not stop it) is refused.
 *
 * @module
 */
import { errorResponse } from "../http/mod.ts";
import { readCookie, sessionCookieName, type SessionStore } from "./sessions.ts";

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

/** Checks the viewer session cookie of `request`. */
export function checkSession(request: Request, access: SessionAccess): SessionCheck {
  const session = readCookie(request.headers.get("cookie"), sessionCookieName(access.port));
  if (session === null || !access.sessions.touch(session)) return "absent";
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

/** The session id a request carries, whether live or not (for logout). */
export function sessionOf(request: Request, port: number): string | null {
  return readCookie(request.headers.get("cookie"), sessionCookieName(port));
}
