// The viewer session's key. The session cookie alone does not open the API (browsers send
// 127.0.0.1 cookies to every port); each `/v1` call also carries this key, which the login
// redirect hands to the page in the URL fragment. It is kept in this origin's localStorage,
// which, unlike a cookie, no page on another port can read.
import { SESSION_KEY } from "./enums.js";

/** Moves a key from the URL fragment (just after login) into storage, and out of the URL. */
export function adoptSessionKey() {
  const params = new URLSearchParams(location.hash.slice(1));
  const key = params.get(SESSION_KEY.fragment);
  if (key === null) return;
  try {
    localStorage.setItem(SESSION_KEY.storage, key);
  } catch {
    // Storage disabled: API calls will be refused with a message saying what to do.
  }
  history.replaceState(null, "", location.pathname + location.search);
}

/** The key of this browser's session, or "" when there is none. */
export function sessionKey() {
  try {
    return localStorage.getItem(SESSION_KEY.storage) ?? "";
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
