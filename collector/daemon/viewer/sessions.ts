/**
 * Viewer access: one-time login codes and the browser sessions they grant, all in memory.
 *
 * Why in memory: a session only has to outlive the browser tab, not the collector; keeping
 * nothing on disk means a restart (or `kiro-learn stop`) logs every browser out, and there is no
 * session file to protect. Codes are single use and short-lived because they travel through a
 * terminal and a 0600 file (never a process list: `kiro-learn open` hands the browser the file's
 * path, see cli/open.ts) and maybe a browser history.
 *
 * @module
 */

/** How long a login code stays valid. */
export const CODE_TTL_MS = 60_000;

/** How long a session survives without a request. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

/** Outstanding codes kept at most (the oldest are dropped first). */
export const MAX_CODES = 64;

/** Live sessions kept at most (the least recently used are dropped first). */
export const MAX_SESSIONS = 256;

/**
 * The session key's names on the wire and in the browser. A session is a cookie *and* a key:
 * browsers send `127.0.0.1` cookies to every port, so a cookie alone proves nothing about who
 * presents it. The key is handed to the viewer's login page once, in the answer to its
 * same-origin `POST /ui/login`, kept in that tab's `sessionStorage` (per port like every web
 * storage, and per tab: no other tab of the origin, such as one a stranger's server loaded on the
 * port while the collector was down, can read it), and sent back in a header (or, by
 * `EventSource`, which cannot set headers, in the live feed's query).
 */
export const SESSION_KEY = Object.freeze({
  /** Request header carrying the key on `/v1` calls. */
  header: "x-kiro-learn-session-key",
  /** Query parameter carrying the key on `GET /v1/feed` only. */
  query: "session_key",
  /**
   * The login link's fragment parameter carrying the one-time code: a fragment never reaches a
   * server, a log or a `Referer`; the login page reads it and posts it.
   */
  code: "code",
  /** `sessionStorage` item the viewer keeps it in. */
  storage: "kiro-learn.session-key",
});

/** The login page's path (GET: the page; POST `{code}`: the session). */
export const LOGIN_PATH = "/ui/login";

/** The path of a one-time login link for `code` (the code in its fragment). */
export function loginLinkPath(code: string): string {
  return `${LOGIN_PATH}#${SESSION_KEY.code}=${encodeURIComponent(code)}`;
}

/** Options for {@linkcode SessionStore}. */
export interface SessionStoreOptions {
  /** Clock in ms (tests substitute a fake one). */
  now?: () => number;
  /** Code lifetime. */
  codeTtlMs?: number;
  /** Session idle timeout. */
  sessionIdleMs?: number;
}

/** A freshly created login code. */
export interface LoginCode {
  /** The code (URL-safe). */
  code: string;
  /** When it stops working (ISO). */
  expires_at: string;
}

/** Login codes and sessions. */
export class SessionStore {
  // Maps keep insertion order, which doubles as age order for eviction.
  #codes = new Map<string, number>();
  #sessions = new Map<string, { seen: number; key: string }>();
  #now: () => number;
  #codeTtlMs: number;
  #idleMs: number;

  /** Creates an empty store. */
  constructor(options: SessionStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#codeTtlMs = options.codeTtlMs ?? CODE_TTL_MS;
    this.#idleMs = options.sessionIdleMs ?? SESSION_IDLE_MS;
  }

  /** Creates a single-use login code. */
  createCode(): LoginCode {
    this.#pruneCodes();
    while (this.#codes.size >= MAX_CODES) this.#codes.delete(this.#codes.keys().next().value!);
    const code = randomToken();
    const expires = this.#now() + this.#codeTtlMs;
    this.#codes.set(code, expires);
    return { code, expires_at: new Date(expires).toISOString() };
  }

  /**
   * Spends a code: returns a new session id, or null when the code is unknown, used or expired.
   * A code is deleted on its first presentation whatever the outcome, so it can never be
   * replayed.
   */
  redeem(code: string): string | null {
    const expires = this.#codes.get(code);
    this.#codes.delete(code);
    if (expires === undefined || expires <= this.#now()) return null;
    while (this.#sessions.size >= MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    const session = randomToken();
    this.#sessions.set(session, { seen: this.#now(), key: randomToken() });
    return session;
  }

  /**
   * The key bound to `session` (which `/v1` requires besides the cookie), or null when the
   * session is unknown. Does not restart the idle clock.
   */
  keyOf(session: string): string | null {
    return this.#sessions.get(session)?.key ?? null;
  }

  /** True when `session` is live; a live session's idle clock restarts. */
  touch(session: string): boolean {
    const entry = this.#sessions.get(session);
    if (entry === undefined) return false;
    const now = this.#now();
    this.#sessions.delete(session);
    if (now - entry.seen >= this.#idleMs) return false;
    // Re-inserting moves it to the young end, so eviction drops the least recently used.
    this.#sessions.set(session, { seen: now, key: entry.key });
    return true;
  }

  /** Ends a session (logout). */
  revoke(session: string): void {
    this.#sessions.delete(session);
  }

  /** Outstanding codes and live sessions (expired ones are not counted). */
  get size(): { codes: number; sessions: number } {
    this.#pruneCodes();
    const now = this.#now();
    for (const [id, { seen }] of this.#sessions) {
      if (now - seen >= this.#idleMs) this.#sessions.delete(id);
    }
    return { codes: this.#codes.size, sessions: this.#sessions.size };
  }

  #pruneCodes(): void {
    const now = this.#now();
    for (const [code, expires] of this.#codes) {
      if (expires <= now) this.#codes.delete(code);
    }
  }
}

/** 256 random bits, base64url without padding. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The session cookie's name; the port is part of it because cookies ignore ports. */
export function sessionCookieName(port: number): string {
  return `kiro_learn_session_${port}`;
}

/** The `Set-Cookie` value that starts a session. */
export function sessionCookie(port: number, session: string): string {
  return `${sessionCookieName(port)}=${session}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The `Set-Cookie` value that ends a session in the browser. */
export function clearedSessionCookie(port: number): string {
  return `${sessionCookieName(port)}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}

/** Reads one cookie from a `Cookie` header; null when absent. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
