// Memories: the list with filters and paging, and search within one or all projects.
import { api, loadProjects, projectName, projectSelect } from "../api.js";
import { badge, card, errorBox, fill, h, pageHead, row, table } from "../dom.js";
import { OBSERVATION_TYPES, STRATEGIES } from "../enums.js";
import { num, when } from "../format.js";

/** @typedef {import("../types.js").MemoryRecord} MemoryRecord */

/** Where the memory page leaves the note ("Forgot …") the list shows once after a redirect. */
export const FLASH_KEY = "kiro-learn-flash";

/** @param {HTMLElement} main */
export async function memoriesPage(main) {
  const params = new URLSearchParams(location.search);
  const state = {
    ns: params.get("ns") ?? "",
    q: params.get("q") ?? "",
    type: params.get("type") ?? "",
    strategy: params.get("strategy") ?? "",
    since: params.get("since") ?? "",
    offset: Math.max(0, Number(params.get("offset") ?? 0) || 0),
  };
  const PAGE = 50;
  const projects = await loadProjects();
  const query = /** @type {HTMLInputElement} */ (h("input", {
    type: "search",
    name: "q",
    id: "q",
    value: state.q,
    placeholder: "Search titles, summaries, facts…",
    "aria-label": "Search memories",
  }));
  const project = /** @type {HTMLSelectElement} */ (projectSelect(projects, state.ns));
  const type = /** @type {HTMLSelectElement} */ (h(
    "select",
    { name: "type", id: "type" },
    h("option", { value: "" }, "Any type"),
    OBSERVATION_TYPES.map((t) => h("option", { value: t, selected: t === state.type }, t)),
  ));
  const strategy = /** @type {HTMLSelectElement} */ (h(
    "select",
    { name: "strategy", id: "strategy" },
    h("option", { value: "" }, "Any strategy"),
    STRATEGIES.map((t) => h("option", { value: t, selected: t === state.strategy }, t)),
  ));
  const since = /** @type {HTMLInputElement} */ (h("input", {
    type: "date",
    name: "since",
    id: "since",
    value: state.since,
  }));
  const results = h("div", { "data-testid": "results" });
  const form = h(
    "form",
    {
      class: "toolbar",
      role: "search",
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        state.q = query.value.trim();
        state.ns = project.value;
        state.type = type.value;
        state.strategy = strategy.value;
        state.since = since.value;
        state.offset = 0;
        load();
      },
    },
    h("label", { class: "grow" }, "Search", query),
    h("label", null, "Project", project),
    h("label", null, "Type", type),
    h("label", null, "Strategy", strategy),
    h("label", null, "Since", since),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, "Search"),
      h("button", {
        type: "button",
        class: "ghost",
        onclick: () => {
          query.value = "";
          type.value = "";
          strategy.value = "";
          since.value = "";
          form.dispatchEvent(new Event("submit", { cancelable: true }));
        },
      }, "Clear"),
    ),
  );
  const flash = sessionStorage.getItem(FLASH_KEY);
  sessionStorage.removeItem(FLASH_KEY);
  fill(
    main,
    pageHead("Memories"),
    flash ? h("div", { class: "notice", role: "status", "data-testid": "flash" }, flash) : null,
    form,
    card("", results),
  );
  for (const select of [project, type, strategy]) {
    select.addEventListener(
      "change",
      () => form.dispatchEvent(new Event("submit", { cancelable: true })),
    );
  }

  const sinceIso = () => {
    if (!state.since) return "";
    const [y, m, d] = state.since.split("-").map(Number);
    return new Date(y, m - 1, d).toISOString();
  };

  const load = async () => {
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries(state)) {
      if (v && !(k === "offset" && v === 0)) next.set(k, String(v));
    }
    history.replaceState(null, "", `/ui/memories${next.size ? `?${next}` : ""}`);
    fill(results, h("p", { class: "muted" }, "Loading…"));
    try {
      /** @type {MemoryRecord[]} */
      let items;
      /** @type {number} */
      let total;
      if (state.q) {
        // Search is per project; with "all projects" it asks each one and concatenates.
        const namespaces = state.ns ? [state.ns] : projects.map((p) => p.namespace).slice(0, 25);
        const pages = await Promise.all(
          namespaces.map((ns) =>
            api(
              `/v1/memories/search?${new URLSearchParams({
                namespace: ns,
                query: state.q,
                limit: "50",
              })}`,
            )
          ),
        );
        const from = sinceIso();
        items = pages.flat().filter((/** @type {MemoryRecord} */ r) =>
          (!state.type || r.observation_type === state.type) &&
          (!state.strategy || r.strategy === state.strategy) &&
          (!from || r.created_at >= from)
        );
        total = items.length;
      } else {
        const qs = new URLSearchParams({ limit: String(PAGE), offset: String(state.offset) });
        if (state.ns) qs.set("namespace", state.ns);
        if (state.type) qs.set("observation_type", state.type);
        if (state.strategy) qs.set("strategy", state.strategy);
        if (state.since) qs.set("since", sinceIso());
        const page = await api(`/v1/memories?${qs}`);
        items = page.items;
        total = page.total;
      }
      renderResults(items, total);
    } catch (error) {
      fill(results, errorBox(error));
    }
  };

  /**
   * @param {MemoryRecord[]} items
   * @param {number} total
   */
  const renderResults = (items, total) => {
    const summary = state.q
      ? `${num(total)} ${total === 1 ? "result" : "results"} for “${state.q}”`
      : total === 0
      ? "No memories"
      : `Showing ${num(state.offset + 1)}–${num(state.offset + items.length)} of ${num(total)}`;
    const rows = items.map((r) =>
      row(
        [
          h("a", { href: `/ui/memories/${r.record_id}`, "data-testid": "memory-link" }, r.title),
          badge(r.observation_type),
          r.strategy,
          projectName(projects, r.namespace),
          when(r.created_at),
        ],
        { attrs: { "data-testid": "memory-row", "data-record-id": r.record_id } },
      )
    );
    fill(
      results,
      h("p", { class: "muted", "data-testid": "result-summary" }, summary),
      items.length === 0
        ? h(
          "p",
          { class: "empty" },
          state.q ? "Nothing matches. Try other words, or another project." : "Nothing here yet.",
        )
        : table(["Title", "Type", "Strategy", "Project", "Created"], rows),
      state.q ? null : h(
        "div",
        { class: "pager" },
        h("button", {
          type: "button",
          class: "ghost",
          disabled: state.offset === 0,
          onclick: () => {
            state.offset = Math.max(0, state.offset - PAGE);
            load();
          },
        }, "Previous"),
        h("button", {
          type: "button",
          class: "ghost",
          disabled: state.offset + items.length >= total,
          onclick: () => {
            state.offset += PAGE;
            load();
          },
        }, "Next"),
      ),
    );
  };
  await load();
}
