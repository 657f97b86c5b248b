// Live feed: what the collector is doing right now, newest first, filterable by kind.
import { api, loadProjects, projectName } from "../api.js";
import { card, errorBox, fill, h, pageHead } from "../dom.js";
import { clip, clock, millis, outcomeBadge, plural } from "../format.js";
import { openFeed } from "../sse.js";

/**
 * @typedef {import("../dom.js").Child} Child
 * @typedef {import("../types.js").StoredEvent} StoredEvent
 * @typedef {(typeof import("../enums.js").FEED_TYPES)[number]} FeedType
 */

/**
 * The filter label of each live feed message type; typed by the collector's list, so the client
 * check fails when the bus gains or loses a type.
 * @type {Record<FeedType, string>}
 */
const KINDS = {
  event: "Events",
  run: "Extraction runs",
  retrieval: "Injections",
  record_saved: "Saved memories",
  records_deleted: "Forgotten memories",
};

/** @param {HTMLElement} main */
export async function feedPage(main) {
  const status = h("span", {
    class: "live",
    "data-state": "connecting",
    "data-testid": "feed-status",
  }, "Connecting…");
  const list = h("ol", { class: "feed", "data-testid": "feed-list", "aria-live": "polite" });
  /** @type {Set<string>} */
  const hidden = new Set();
  const filters = h(
    "div",
    { class: "toolbar" },
    Object.entries(KINDS).map(([kind, label]) =>
      h(
        "label",
        { class: "inline" },
        h("input", {
          type: "checkbox",
          checked: true,
          onchange: (/** @type {Event} */ e) => {
            const on = /** @type {HTMLInputElement} */ (e.target).checked;
            if (on) hidden.delete(kind);
            else hidden.add(kind);
            for (const li of list.children) {
              /** @type {HTMLElement} */ (li).hidden = hidden.has(
                /** @type {HTMLElement} */ (li).dataset.kind ?? "",
              );
            }
          },
        }),
        label,
      )
    ),
  );
  fill(main, pageHead("Live feed", status), filters, card("", list));
  const projects = await loadProjects();

  /**
   * @param {string} type
   * @param {any} m
   * @param {boolean} live
   */
  const item = (type, m, live) => {
    /** @type {[string, string, Child[]]} */
    let parts;
    switch (type) {
      case "event":
        parts = [m.at, "event", [
          h("strong", null, m.kind),
          ` · ${m.surface} · ${projectName(projects, m.namespace)} `,
          h("span", { class: "muted" }, clip(m.preview ?? "", 240)),
        ]];
        break;
      case "run": {
        const r = m.run ?? {};
        parts = [r.started_at, "extraction", [
          outcomeBadge(r.outcome ?? "?"),
          ` ${r.strategy}: ${plural(r.records, "record")} from ${
            plural(r.entries, "entry", { many: "entries" })
          } in ${millis(r.duration_ms)} · ${projectName(projects, r.namespace ?? "")}`,
          r.error ? h("div", { class: "muted" }, clip(r.error, 200)) : null,
        ]];
        break;
      }
      case "retrieval":
        parts = [m.at, "injection", [
          `${m.records.length} ${m.records.length === 1 ? "memory" : "memories"} injected in ${
            millis(m.latency_ms)
          } · ${projectName(projects, m.namespace)} `,
          m.records.map((
            /** @type {string} */ id,
          ) => [h("a", { href: `/ui/memories/${id}`, class: "mono" }, id.slice(0, 12) + "…"), " "]),
        ]];
        break;
      case "record_saved":
        parts = ["", "saved", [
          h("a", { href: `/ui/memories/${m.record_id}` }, m.title),
          ` · ${projectName(projects, m.namespace)}`,
        ]];
        break;
      default:
        parts = ["", "forgotten", [h("span", { class: "mono" }, m.record_ids.join(", "))]];
    }
    const li = h(
      "li",
      { class: live ? "fresh" : "backlog", "data-kind": type, "data-testid": "feed-item" },
      clock(parts[0]),
      h("span", null, h("span", { class: `badge t-${type}` }, parts[1])),
      h("div", { class: "what" }, parts[2]),
    );
    li.hidden = hidden.has(type);
    return li;
  };

  try {
    const recent = await api("/v1/events?limit=25");
    for (const e of /** @type {StoredEvent[]} */ (recent.items)) {
      const body = e.body;
      const preview = body.type === "text"
        ? body.content
        : body.type === "message"
        ? body.turns.at(-1)?.content ?? ""
        : JSON.stringify(body.data);
      list.append(item("event", {
        kind: e.kind,
        surface: e.source.surface,
        namespace: e.namespace,
        preview: String(preview).replace(/\s+/g, " "),
        at: e.valid_time,
      }, false));
    }
  } catch (error) {
    list.append(h("li", null, errorBox(error)));
  }

  openFeed((type, m) => {
    list.prepend(item(type, m, true));
    while (list.children.length > 500) list.lastElementChild?.remove();
  }, (state) => {
    status.dataset.state = state;
    status.textContent = state === "open"
      ? "Live"
      : state === "connecting"
      ? "Reconnecting…"
      : "Disconnected";
  });
}
