// Injections: what each prompt was given from memory, and why ("why was this in my prompt").
import { api, loadProjects, projectName, projectSelect } from "../api.js";
import { card, errorBox, fill, h, pageHead, row, table } from "../dom.js";
import { millis, num, outcomeBadge, when } from "../format.js";
import { debounce, openFeed } from "../sse.js";

/**
 * @typedef {import("../types.js").Retrieval} Retrieval
 * @typedef {(typeof import("../enums.js").RETRIEVAL_OUTCOMES)[number]} RetrievalOutcome
 */

/**
 * Why a retrieval injected nothing, by outcome; typed by the collector's list, so the client
 * check fails when an outcome is added or removed.
 * @type {Record<Exclude<RetrievalOutcome, "ok">, string>}
 */
const REASONS = {
  empty: "No memory matched this prompt.",
  timeout: "The search ran out of its time budget, so nothing was injected.",
  error: "The search failed, so nothing was injected.",
};

/** @param {HTMLElement} main */
export async function injectionsPage(main) {
  const params = new URLSearchParams(location.search);
  let ns = params.get("ns") ?? "";
  const projects = await loadProjects();
  const select = /** @type {HTMLSelectElement} */ (projectSelect(projects, ns));
  const list = h("div", { "data-testid": "injections" });
  select.addEventListener("change", () => {
    ns = select.value;
    history.replaceState(
      null,
      "",
      ns ? `/ui/injections?ns=${encodeURIComponent(ns)}` : "/ui/injections",
    );
    load();
  });
  fill(
    main,
    pageHead("Injections", h("span", { class: "muted" }, "What each prompt was given, and why")),
    h("div", { class: "toolbar" }, h("label", null, "Project", select)),
    list,
  );
  const load = async () => {
    try {
      const qs = new URLSearchParams({ limit: "100" });
      if (ns) qs.set("namespace", ns);
      /** @type {Retrieval[]} */
      const items = (await api(`/v1/retrievals?${qs}`)).items;
      fill(
        list,
        ...(items.length === 0
          ? [
            card(
              "",
              h(
                "p",
                { class: "empty" },
                "No prompt has asked for memory yet. Injections appear here as prompts come in.",
              ),
            ),
          ]
          : items.map((r) =>
            h(
              "section",
              { class: "card injection", "data-testid": "injection" },
              h(
                "div",
                { class: "head" },
                when(r.created_at),
                h("span", null, projectName(projects, r.namespace)),
                outcomeBadge(r.outcome),
                h("span", { "data-testid": "injection-latency" }, millis(r.latency_ms)),
                h("span", { "data-testid": "injection-tokens" }, `${num(r.tokens)} tokens`),
                h(
                  "span",
                  null,
                  `${r.results.length} ${r.results.length === 1 ? "memory" : "memories"}`,
                ),
              ),
              h("blockquote", { class: "query", "data-testid": "injection-query" }, r.query),
              r.results.length === 0
                ? h(
                  "p",
                  { class: "muted" },
                  REASONS[/** @type {keyof typeof REASONS} */ (r.outcome)] ?? "Nothing injected.",
                )
                : table(
                  ["#", "Memory", "Score", "Record"],
                  r.results.map((x, i) =>
                    row(
                      [
                        String(i + 1),
                        h("a", { href: `/ui/memories/${x.record_id}` }, x.title),
                        x.score.toFixed(3),
                        h("span", { class: "mono muted" }, x.record_id),
                      ],
                      { numeric: new Set([0, 2]), attrs: { "data-testid": "injected-record" } },
                    )
                  ),
                  { numeric: new Set([0, 2]) },
                ),
            )
          )),
      );
    } catch (error) {
      fill(list, errorBox(error));
    }
  };
  await load();
  const reload = debounce(load, 500);
  openFeed((type) => {
    if (type === "retrieval" || type === "records_deleted" || type === "record_saved") reload();
  });
}
