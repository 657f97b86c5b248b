// The login page: spends the one-time code of the link `kiro-learn open` made. The code is in
// this page's URL fragment, which never reached a server; it is taken out of the URL (and so out
// of the history) before anything else, posted from this origin, and the session's key in the
// answer is kept in this tab only (session.js). A spent or expired code shows why.
import { SESSION_KEY } from "./enums.js";
import { keepSessionKey, sessionKey } from "./session.js";

async function login() {
  const code = new URLSearchParams(location.hash.slice(1)).get(SESSION_KEY.code);
  history.replaceState(null, "", location.pathname);
  if (code === null && sessionKey() !== "") {
    location.replace("/ui");
    return;
  }
  const status = document.getElementById("login");
  const expired = document.querySelector('[data-testid="link-expired"]');
  try {
    const res = await fetch(location.pathname, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: code ?? "" }),
    });
    if (res.ok) {
      keepSessionKey((await res.json()).session_key);
      location.replace("/ui");
      return;
    }
  } catch {
    // The collector went away: the same advice holds.
  }
  status?.setAttribute("hidden", "");
  status?.setAttribute("data-state", "failed");
  expired?.removeAttribute("hidden");
}

login();
