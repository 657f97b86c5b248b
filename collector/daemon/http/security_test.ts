import assert from "node:assert/strict";
import { allowedHosts, allowedOrigins, checkHostAndOrigin } from "./security.ts";

const PORT = 47_124;
const options = {
  hosts: allowedHosts(PORT),
  origins: allowedOrigins(PORT),
  entries: new Set(["/ui/login"]),
};

function status(path: string, init: { method?: string; headers?: Record<string, string> }) {
  const request = new Request(`http://127.0.0.1:${PORT}${path}`, {
    method: init.method ?? "GET",
    headers: { host: `127.0.0.1:${PORT}`, ...init.headers },
  });
  return checkHostAndOrigin(request, options)?.status ?? "ok";
}

const navigation = {
  "sec-fetch-site": "cross-site",
  "sec-fetch-mode": "navigate",
  "sec-fetch-dest": "document",
};

Deno.test("another site (a file:// page) may open an entry page, as a page, and nothing else", () => {
  assert.equal(status("/ui/login", { headers: navigation }), "ok");
  assert.equal(status("/ui/login?x=1", { headers: navigation }), "ok");
  // Not a top-level GET navigation, or not an entry: refused as before.
  assert.equal(status("/ui/login", { method: "POST", headers: navigation }), 403);
  assert.equal(
    status("/ui/login", { headers: { ...navigation, "sec-fetch-dest": "iframe" } }),
    403,
  );
  assert.equal(status("/ui/login", { headers: { ...navigation, "sec-fetch-mode": "cors" } }), 403);
  assert.equal(status("/ui", { headers: navigation }), 403);
  assert.equal(status("/v1/stats", { headers: navigation }), 403);
  // The Host check still holds for an entry.
  const foreign = new Request(`http://127.0.0.1:${PORT}/ui/login`, {
    headers: { host: "attacker.example", ...navigation },
  });
  assert.equal(checkHostAndOrigin(foreign, options)?.status, 403);
});
