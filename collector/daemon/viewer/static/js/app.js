// The kiro-learn viewer's client: fills the server-rendered shell from the collector's JSON API.
//
// Native ES modules, no build step and no dependencies: what is in `static/js/` is what runs.
// `enums.js` is generated from the collector's own constants (viewer/_enums.ts, pinned by its
// test), so the client cannot drift from what the API accepts. This entry picks the page the
// shell names (`data-page`) and keeps the header's health badge current.
//
// The JSDoc types are checked by client_check_test.ts against the DOM library, in a program of
// its own (a `/// <reference lib="dom">` here would leak DOM globals into the workspace's check).
import { errorBox, fill } from "./dom.js";
import { feedPage } from "./pages/feed.js";
import { graphPage } from "./pages/graph.js";
import { injectionsPage } from "./pages/injections.js";
import { memoriesPage } from "./pages/memories.js";
import { memoryPage } from "./pages/memory.js";
import { overviewPage } from "./pages/overview.js";

function watchHealth() {
  const el = document.getElementById("health");
  if (!el) return;
  const check = async () => {
    try {
      const res = await fetch("/healthz", { cache: "no-store" });
      const body = await res.json();
      el.dataset.state = "online";
      el.textContent = `Online · pid ${body.pid}`;
    } catch {
      el.dataset.state = "offline";
      el.textContent = "Collector offline";
    }
  };
  check();
  setInterval(check, 10_000);
}

/**
 * Each page the shell can name; typed by the collector's list, so the client check fails when the
 * shell gains a page this client does not handle.
 * @type {Record<(typeof import("./enums.js").PAGE_NAMES)[number], (main: HTMLElement) => Promise<void>>}
 */
const PAGES = {
  overview: overviewPage,
  feed: feedPage,
  memories: memoriesPage,
  memory: memoryPage,
  injections: injectionsPage,
  graph: graphPage,
};

async function start() {
  watchHealth();
  const main = document.getElementById("app");
  if (!main) return;
  const page = PAGES[/** @type {keyof typeof PAGES} */ (main.dataset.page ?? "")];
  if (!page) return;
  try {
    await page(main);
  } catch (error) {
    fill(main, errorBox(error));
  }
  main.dataset.ready = "true";
}

start();
