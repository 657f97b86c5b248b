// The viewer session's key. The session cookie alone does not open the API (browsers send
// 127.0.0.1 cookies to every port); each `/v1` call also carries this key, which the login page
// got in the answer to its own post. It is kept in this tab's sessionStorage and nowhere else:
// web storage is per port, and sessionStorage is also per tab, so no other page of this origin,
// not even one a stranger's server loaded on the port while the collector was down and that
// stayed open, can read it. (A new tab needs a new `kiro-learn open`.)
import { SESSION_KEY } from "./enums.js";

/** Keeps `key` for this tab, and drops what an older viewer left in localStorage. */
export function keepSessionKey(/** @type {string} */ key) {
  sessionStorage.setItem(SESSION_KEY.storage, key);
  try {
    localStorage.removeItem(SESSION_KEY.storage);
  } catch {
    // Storage disabled: nothing to drop.
  }
}

/** The key of this tab's session, or "" when there is none. */
export function sessionKey() {
  try {
    return sessionStorage.getItem(SESSION_KEY.storage) ?? "";
  } catch {
    return "";
  }
}

/** Headers that carry the key on an API call. */
export function sessionHeaders() {
  return { [SESSION_KEY.header]: sessionKey() };
}

/** The live feed's URL (EventSource cannot send headers, so the key rides in the query). */
export function feedUrl() {
  return `/v1/feed?${SESSION_KEY.query}=${encodeURIComponent(sessionKey())}`;
}
