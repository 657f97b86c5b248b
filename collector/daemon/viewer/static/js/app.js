// The kiro-learn viewer's client: fills the server-rendered shell from the collector's JSON API.
//
// Plain ES module, no build step and no dependencies: what is in this file is what runs. Data is
// only ever put into the page as text nodes or attribute values (never as HTML), so a memory
// that contains markup cannot script the viewer. All requests go to this origin; the session
// cookie authenticates them, and the browser adds the Origin header the collector requires for
// changes.
//
// The JSDoc types are checked by client_check_test.ts against the DOM library, in a program of
// its own (a `/// <reference lib="dom">` here would leak DOM globals into the workspace's check).

/**
 * @typedef {{record_id: string, namespace: string, strategy: string, title: string,
 *   summary: string, facts: string[], concepts: string[], files_touched: string[],
 *   observation_type: string, source_event_ids: string[], created_at: string}} MemoryRecord
 * @typedef {{namespace: string, project_id: string, display_name: string, event_count: number,
 *   memory_count: number}} Project
 * @typedef {{count: number, total: number, p50: number|null, p95: number|null,
 *   p99: number|null, max: number|null}} LatencySummary
 * @typedef {{event_id: string, session_id: string, namespace: string, kind: string,
 *   valid_time: string, source: {surface: string}, body: any}} StoredEvent
 * @typedef {{id: number, created_at: string, namespace: string, query: string,
 *   results: {record_id: string, score: number, title: string}[], latency_ms: number,
 *   tokens: number, outcome: string, event_id?: string}} Retrieval
 * @typedef {{id?: number, project_id: string, namespace: string, started_at: string,
 *   duration_ms: number, strategy: string, outcome: string, entries: number, records: number,
 *   error?: string|null}} Run
 * @typedef {Record<string, any>} Stats
 * @typedef {string | Node | null | undefined | false | any[]} Child
 */

const OBSERVATION_TYPES = [
  "tool_use",
  "decision",
  "error",
  "discovery",
  "pattern",
  "session_summary",
];
const STRATEGIES = [
  "llm-summary",
  "llm-reconciled",
  "heuristic",
  "mcp_observation",
  "mcp_session_summary",
];
const FLASH_KEY = "kiro-learn-flash";

// ---------------------------------------------------------------------------------------------
// DOM helpers

/**
 * Creates an element. `props` keys starting with `on` are listeners; others are attributes
 * (skipped when null, undefined or false). Children are text or nodes.
 * @param {string} tag
 * @param {Record<string, any> | null} [props]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/**
 * Replaces an element's children.
 * @param {Element} el
 * @param {...Child} children
 */
function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Creates an SVG element with attributes.
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
function s(tag, attrs = {}) {
  const el = /** @type {SVGElement} */ (document.createElementNS(SVG_NS, tag));
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

/**
 * @param {string} title
 * @param {...Child} extra
 */
function pageHead(title, ...extra) {
  return h(
    "div",
    { class: "page-head" },
    h("h1", null, title),
    h("span", { class: "spacer" }),
    extra,
  );
}

/**
 * @param {string} title
 * @param {...Child} children
 */
function card(title, ...children) {
  return h("section", { class: "card" }, title ? h("h2", null, title) : null, ...children);
}

/** @param {unknown} error */
function errorBox(error) {
  const message = error instanceof Error ? error.message : String(error);
  return h("div", { class: "error", role: "alert" }, message);
}

/** @param {Record<string, Child>} pairs */
function kv(pairs) {
  const dl = h("dl", { class: "kv" });
  for (const [key, value] of Object.entries(pairs)) {
    if (value === undefined) continue;
    dl.append(h("dt", null, key), h("dd", null, value ?? "—"));
  }
  return dl;
}

/**
 * @param {string} text
 * @param {"ok" | "bad" | "warn" | ""} [tone]
 */
function badge(text, tone = "") {
  return h("span", { class: `badge ${tone}`.trim() }, text);
}

/**
 * @param {string[]} headers
 * @param {Node[]} rows
 * @param {Set<number>} [numeric]
 */
function table(headers, rows, numeric = new Set()) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      null,
      h(
        "thead",
        null,
        h("tr", null, headers.map((t, i) => h("th", { class: numeric.has(i) ? "num" : null }, t))),
      ),
      h("tbody", null, rows),
    ),
  );
}

/**
 * @param {Child[]} cells
 * @param {Set<number>} [numeric]
 * @param {Record<string, any>} [props]
 */
function row(cells, numeric = new Set(), props = {}) {
  return h("tr", props, cells.map((c, i) => h("td", { class: numeric.has(i) ? "num" : null }, c)));
}

// ---------------------------------------------------------------------------------------------
// Formatting

/** @param {number | null | undefined} n */
function num(n) {
  return typeof n === "number" ? n.toLocaleString() : "—";
}

/**
 * @param {number} n
 * @param {string} one
 * @param {string} [many]
 */
function plural(n, one, many = one + "s") {
  return `${num(n)} ${n === 1 ? one : many}`;
}

/** @param {number | null | undefined} ms */
function millis(ms) {
  if (typeof ms !== "number") return "—";
  return `${
    ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms).toLocaleString()
  } ms`;
}

/** @param {string | undefined | null} iso */
function when(iso) {
  if (!iso) return h("span", { class: "muted" }, "—");
  const date = new Date(iso);
  return h(
    "time",
    { datetime: iso, title: iso },
    date.toLocaleString(undefined, {
      dateStyle: "medium",
      timeStyle: "short",
    }),
  );
}

/** @param {string} iso */
function clock(iso) {
  const date = iso ? new Date(iso) : new Date();
  return h(
    "time",
    { datetime: date.toISOString(), title: date.toISOString() },
    date.toLocaleTimeString(),
  );
}

/** @param {string} text @param {number} max */
function clip(text, max) {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** @param {number} bytes */
function sizeOf(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** @param {string} ns */
function shortNamespace(ns) {
  const match = /\/project\/([^/]+)\/$/.exec(ns);
  return match ? `project ${match[1].slice(0, 10)}` : ns;
}

/** @param {string} outcome */
function outcomeBadge(outcome) {
  const tone = outcome === "ok"
    ? "ok"
    : outcome === "failed" || outcome === "error" || outcome === "timeout"
    ? "bad"
    : outcome === "partial"
    ? "warn"
    : "";
  return badge(outcome, tone);
}

// ---------------------------------------------------------------------------------------------
// API

class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {unknown} [details]
   */
  constructor(status, message, details) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

/**
 * Calls the collector with the session cookie. A 401 means the session ended: reloading shows
 * the server's "how to open the viewer" page.
 * @param {string} path
 * @param {RequestInit & {json?: unknown}} [init]
 * @returns {Promise<any>}
 */
async function api(path, init = {}) {
  const { json, ...rest } = init;
  const response = await fetch(path, {
    ...rest,
    credentials: "same-origin",
    headers: json === undefined ? rest.headers : { "content-type": "application/json" },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  if (response.status === 401 && path.startsWith("/v1/")) {
    location.reload();
    throw new ApiError(401, "the viewer session ended");
  }
  const text = await response.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON.
  }
  if (!response.ok) {
    const b = /** @type {any} */ (body);
    throw new ApiError(response.status, b?.error ?? `HTTP ${response.status}`, b?.details);
  }
  return body;
}

/** @returns {Promise<Project[]>} */
async function loadProjects() {
  try {
    return (await api("/v1/stats")).projects ?? [];
  } catch {
    return [];
  }
}

/**
 * @param {Project[]} projects
 * @param {string} ns
 */
function projectName(projects, ns) {
  return projects.find((p) => p.namespace === ns)?.display_name ?? shortNamespace(ns);
}

/**
 * A `<select>` of projects.
 * @param {Project[]} projects
 * @param {string} selected
 * @param {string} allLabel
 */
function projectSelect(projects, selected, allLabel = "All projects") {
  return h(
    "select",
    { name: "ns", id: "project" },
    h("option", { value: "" }, allLabel),
    projects.map((p) =>
      h(
        "option",
        { value: p.namespace, selected: p.namespace === selected },
        `${p.display_name} (${p.memory_count})`,
      )
    ),
  );
}

/**
 * @template {(...args: any[]) => void} F
 * @param {F} fn
 * @param {number} ms
 * @returns {(...args: Parameters<F>) => void}
 */
function debounce(fn, ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

// ---------------------------------------------------------------------------------------------
// Live feed (server-sent events)

const FEED_TYPES = ["event", "run", "retrieval", "record_saved", "records_deleted"];

/**
 * Subscribes to `/v1/feed`. EventSource reconnects by itself after network errors; a refused
 * request (session gone) closes it, and then a plain API call decides between reconnecting and
 * showing the how-to-open page.
 * @param {(type: string, message: any) => void} onMessage
 * @param {(state: "open" | "connecting" | "closed") => void} [onState]
 */
function openFeed(onMessage, onState = () => {}) {
  /** @type {EventSource | null} */
  let source = null;
  const connect = () => {
    source = new EventSource("/v1/feed");
    for (const type of FEED_TYPES) {
      source.addEventListener(type, (e) => {
        try {
          onMessage(type, JSON.parse(/** @type {MessageEvent} */ (e).data));
        } catch (error) {
          console.warn("bad feed message", error);
        }
      });
    }
    source.addEventListener("hello", () => onState("open"));
    source.onopen = () => onState("open");
    source.onerror = () => {
      if (source?.readyState === EventSource.CLOSED) {
        onState("closed");
        setTimeout(() => api("/healthz").then(connect, () => setTimeout(connect, 5000)), 3000);
      } else {
        onState("connecting");
      }
    };
  };
  connect();
  addEventListener("pagehide", () => source?.close());
}

// ---------------------------------------------------------------------------------------------
// Header: health

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

// ---------------------------------------------------------------------------------------------
// Overview

/**
 * @param {string} label
 * @param {number} value
 * @param {string} id
 */
function metric(label, value, id) {
  return h(
    "div",
    { class: "card metric" },
    h("div", { class: "label" }, label),
    h("div", { class: "value", "data-testid": id }, num(value)),
  );
}

/** @param {HTMLElement} main */
async function overviewPage(main) {
  const updated = h("span", { class: "muted", "data-testid": "updated" });
  const body = h("div");
  fill(main, pageHead("Overview", updated), body);
  const refresh = async () => {
    const [healthR, statsR, runsR] = await Promise.allSettled([
      api("/healthz"),
      api("/v1/stats"),
      api("/v1/runs?limit=15"),
    ]);
    if (statsR.status === "rejected") {
      fill(body, errorBox(statsR.reason));
      return;
    }
    const health = healthR.status === "fulfilled" ? healthR.value : null;
    const runs = runsR.status === "fulfilled" ? runsR.value.items : [];
    fill(body, ...renderOverview(statsR.value, health, runs));
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
  };
  await refresh();
  setInterval(refresh, 10_000);
  openFeed(debounce(refresh, 700));
}

/**
 * @param {Stats} stats
 * @param {any} health
 * @param {Run[]} runs
 * @returns {Node[]}
 */
function renderOverview(stats, health, runs) {
  const x = stats.extraction;
  const cards = h(
    "div",
    { class: "grid cards" },
    metric("Events", stats.total_events, "count-events"),
    metric("Memories", stats.total_memories, "count-memories"),
    metric("Projects", stats.total_projects, "count-projects"),
    metric("Concepts", stats.total_concepts, "count-concepts"),
  );

  const healthCard = card(
    "Health",
    kv({
      Collector: health ? badge("online", "ok") : badge("unreachable", "bad"),
      Version: health?.version,
      PID: health ? String(health.pid) : null,
      Extraction: x
        ? `${x.strategy.configured} → ${x.strategy.effective}${
          x.strategy.agent_found ? "" : " (no agent found)"
        }`
        : "not running",
      "LLM sessions in use": x ? String(x.sessions_in_use) : undefined,
      Spool: stats.spool === undefined ? undefined : JSON.stringify(stats.spool),
    }),
  );

  const spend = x?.llm_today;
  const spendCard = card(
    "LLM spend today",
    spend
      ? [
        h(
          "p",
          { "data-testid": "llm-spend" },
          `${num(spend.chars_sent)} of ${num(spend.cap)} characters sent`,
          spend.over_cap ? [" ", badge("over the cap", "bad")] : null,
        ),
        spend.cap > 0
          ? h("meter", {
            min: 0,
            max: spend.cap,
            value: Math.min(spend.chars_sent, spend.cap),
            high: spend.cap * 0.8,
          })
          : h("p", { class: "muted" }, "The daily cap is 0: LLM extraction is off."),
        h("p", { class: "muted" }, `${num(spend.chars_received)} characters received`),
      ]
      : h("p", { class: "muted" }, "Extraction is not running."),
  );

  const present = stats.embeddings_present ?? 0;
  const missing = stats.embeddings_missing ?? 0;
  const coverage = present + missing === 0 ? null : present / (present + missing);
  const embeddingsCard = card(
    "Embeddings",
    h(
      "p",
      { "data-testid": "embeddings" },
      coverage === null
        ? "No memories yet."
        : `${num(present)} of ${num(present + missing)} memories embedded (${
          Math.round(coverage * 100)
        }%)`,
    ),
    coverage === null
      ? null
      : h("meter", { min: 0, max: 1, value: coverage, low: 0.5, optimum: 1 }),
    stats.embeddings && typeof stats.embeddings === "object"
      ? kv(
        Object.fromEntries(
          Object.entries(stats.embeddings).map((
            [k, v],
          ) => [k.replaceAll("_", " "), typeof v === "object" ? JSON.stringify(v) : String(v)]),
        ),
      )
      : null,
  );

  const latency = stats.latency;
  const latencyRow = /** @param {string} name @param {LatencySummary | undefined} l */ (name, l) =>
    row(
      [name, num(l?.count), millis(l?.p50), millis(l?.p95), millis(l?.p99), millis(l?.max)],
      new Set([1, 2, 3, 4, 5]),
      {
        "data-testid": `latency-${name}`,
      },
    );
  const latencyCard = card(
    "Latency (recent requests)",
    latency
      ? table(
        ["Path", "Samples", "p50", "p95", "p99", "Max"],
        [latencyRow("ingest", latency.ingest), latencyRow("retrieval", latency.retrieval)],
        new Set([1, 2, 3, 4, 5]),
      )
      : h("p", { class: "muted" }, "Not reported by this collector."),
    h(
      "p",
      { class: "muted" },
      "Ingest: POST /v1/events. Retrieval: prompts posted with retrieval, as the hook waits.",
    ),
  );

  /** @type {Map<string, any>} */
  const states = new Map((x?.projects ?? []).map((/** @type {any} */ p) => [p.project_id, p]));
  /** @type {Map<string, any>} */
  const queues = new Map((stats.queue ?? []).map((/** @type {any} */ q) => [q.project_id, q]));
  /** @type {Map<string, Run>} */
  const lastRuns = new Map();
  for (const run of runs) if (!lastRuns.has(run.project_id)) lastRuns.set(run.project_id, run);
  /** @type {Project[]} */
  const projects = [...stats.projects];
  for (const q of queues.values()) {
    if (!projects.some((p) => p.project_id === q.project_id)) {
      projects.push({
        namespace: q.namespace,
        project_id: q.project_id,
        display_name: shortNamespace(q.namespace),
        event_count: 0,
        memory_count: 0,
      });
    }
  }
  const projectRows = projects.map((p) => {
    const q = queues.get(p.project_id);
    const st = states.get(p.project_id);
    const run = lastRuns.get(p.project_id);
    const breaker = !st
      ? h("span", { class: "muted" }, "—")
      : st.breaker === "closed"
      ? badge("closed", "ok")
      : st.breaker === "open"
      ? badge(`open (${st.failures} failures)`, "bad")
      : badge("half-open", "warn");
    const last = run
      ? [
        outcomeBadge(run.outcome),
        ` ${run.strategy} · ${plural(run.records, "record")} · `,
        when(run.started_at),
      ]
      : st?.last_run
      ? [outcomeBadge(st.last_run.ok ? "ok" : "failed"), " ", when(st.last_run.at)]
      : h("span", { class: "muted" }, "none yet");
    return row(
      [
        h(
          "a",
          { href: `/ui/memories?ns=${encodeURIComponent(p.namespace)}`, title: p.namespace },
          p.display_name,
        ),
        num(p.event_count),
        num(p.memory_count),
        q ? `${num(q.rows)} (${sizeOf(q.bytes)})` : "0",
        [breaker, st?.running ? [" ", badge("running", "warn")] : null],
        last,
      ],
      new Set([1, 2, 3]),
      { "data-testid": "project-row" },
    );
  });
  const projectsCard = card(
    "Projects",
    projects.length === 0 ? h("p", { class: "empty" }, "No project has sent anything yet.") : table(
      ["Project", "Events", "Memories", "Queued", "Breaker", "Last extraction"],
      projectRows,
      new Set([1, 2, 3]),
    ),
  );

  const runsCard = card(
    "Recent extraction runs",
    runs.length === 0 ? h("p", { class: "empty" }, "No extraction has run yet.") : table(
      ["Started", "Project", "Strategy", "Outcome", "Entries", "Records", "Duration", "Error"],
      runs.map((r) =>
        row(
          [
            when(r.started_at),
            projectName(stats.projects, r.namespace),
            r.strategy,
            outcomeBadge(r.outcome),
            num(r.entries),
            num(r.records),
            millis(r.duration_ms),
            r.error ? h("span", { class: "muted", title: r.error }, clip(r.error, 80)) : "",
          ],
          new Set([4, 5, 6]),
          { "data-testid": "run-row" },
        )
      ),
      new Set([4, 5, 6]),
    ),
  );

  const breakdown = /** @param {Record<string, number>} counts */ (counts) =>
    Object.keys(counts ?? {}).length === 0 ? h("p", { class: "muted" }, "None yet.") : h(
      "ul",
      { class: "chips" },
      Object.entries(counts).map(([k, v]) => h("li", { class: "chip" }, `${k}: ${num(v)}`)),
    );
  const storedCard = card(
    "What is stored",
    h("h3", null, "Memories by observation type"),
    breakdown(stats.observation_types),
    h("h3", { class: "spaced" }, "Events by kind"),
    breakdown(stats.event_kinds),
  );

  return [
    cards,
    h("div", { class: "grid three" }, healthCard, spendCard, embeddingsCard),
    h("div", { class: "grid two" }, latencyCard, storedCard),
    projectsCard,
    runsCard,
  ];
}

// ---------------------------------------------------------------------------------------------
// Live feed page

/** @param {HTMLElement} main */
async function feedPage(main) {
  const status = h("span", {
    class: "live",
    "data-state": "connecting",
    "data-testid": "feed-status",
  }, "Connecting…");
  const list = h("ol", { class: "feed", "data-testid": "feed-list", "aria-live": "polite" });
  const kinds = {
    event: "Events",
    run: "Extraction runs",
    retrieval: "Injections",
    record_saved: "Saved memories",
    records_deleted: "Forgotten memories",
  };
  /** @type {Set<string>} */
  const hidden = new Set();
  const filters = h(
    "div",
    { class: "toolbar" },
    Object.entries(kinds).map(([kind, label]) =>
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
            plural(r.entries, "entry", "entries")
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

// ---------------------------------------------------------------------------------------------
// Memories list and search

/** @param {HTMLElement} main */
async function memoriesPage(main) {
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
        new Set(),
        { "data-testid": "memory-row", "data-record-id": r.record_id },
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

// ---------------------------------------------------------------------------------------------
// Memory detail, edit and forget

/** @param {any} body */
function eventText(body) {
  if (body?.type === "text") return body.content;
  if (body?.type === "message") {
    return body.turns.map((/** @type {{role: string, content: string}} */ t) =>
      `${t.role}: ${t.content}`
    ).join("\n\n");
  }
  return JSON.stringify(body?.data, null, 2) ?? "";
}

/** @param {HTMLElement} main */
async function memoryPage(main) {
  const id = main.dataset.recordId ?? "";
  const projects = await loadProjects();
  /** @type {{record: MemoryRecord, source_events: StoredEvent[]}} */
  let data;
  try {
    data = await api(`/v1/memories/${encodeURIComponent(id)}`);
  } catch (error) {
    fill(
      main,
      h("p", null, h("a", { href: "/ui/memories" }, "← Memories")),
      error instanceof ApiError && error.status === 404
        ? card(
          "Memory not found",
          h(
            "p",
            { "data-testid": "not-found" },
            `There is no memory ${id}. It may have been forgotten.`,
          ),
        )
        : errorBox(error),
    );
    return;
  }
  /** @type {string | null} */
  let notice = null;

  const render = () => {
    const r = data.record;
    const dialog = forgetDialog(r);
    fill(
      main,
      h("p", null, h("a", { href: "/ui/memories" }, "← Memories")),
      notice
        ? h("div", { class: "notice", role: "status", "data-testid": "notice" }, notice)
        : null,
      h(
        "section",
        { class: "card detail-head" },
        h("h1", { "data-testid": "memory-title" }, r.title),
        h(
          "div",
          { class: "meta" },
          badge(r.observation_type),
          badge(r.strategy),
          h(
            "a",
            { href: `/ui/memories?ns=${encodeURIComponent(r.namespace)}`, title: r.namespace },
            projectName(projects, r.namespace),
          ),
          h("span", { class: "muted" }, "·"),
          when(r.created_at),
          h("span", { class: "muted mono" }, r.record_id),
        ),
        h("p", { class: "summary", "data-testid": "memory-summary" }, r.summary),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "ghost", onclick: () => edit() }, "Edit"),
          h(
            "button",
            { type: "button", class: "danger ghost", onclick: () => dialog.showModal() },
            "Forget…",
          ),
        ),
      ),
      h(
        "div",
        { class: "grid two" },
        card(
          "Facts",
          r.facts.length
            ? h(
              "ul",
              { class: "plain", "data-testid": "facts" },
              r.facts.map((f) => h("li", null, f)),
            )
            : h("p", { class: "muted" }, "No facts."),
        ),
        card(
          "Concepts and files",
          r.concepts.length
            ? h(
              "ul",
              { class: "chips", "data-testid": "concepts" },
              r.concepts.map((c) => h("li", { class: "chip" }, c)),
            )
            : h("p", { class: "muted" }, "No concepts."),
          h("h3", { class: "spaced" }, "Files touched"),
          r.files_touched.length
            ? h(
              "ul",
              { class: "plain mono", "data-testid": "files" },
              r.files_touched.map((f) => h("li", null, f)),
            )
            : h("p", { class: "muted" }, "No files."),
        ),
      ),
      card(
        `Source events (${r.source_event_ids.length})`,
        h(
          "div",
          { "data-testid": "source-events" },
          data.source_events.map((e) =>
            h(
              "div",
              { class: "event", "data-testid": "source-event" },
              h(
                "div",
                { class: "head" },
                badge(e.kind),
                when(e.valid_time),
                h(
                  "span",
                  { class: "muted" },
                  `${e.source.surface} · session ${clip(e.session_id, 24)}`,
                ),
                h("span", { class: "muted mono" }, e.event_id),
              ),
              h("pre", { class: "body" }, clip(eventText(e.body), 4000)),
            )
          ),
          data.source_events.length < r.source_event_ids.length
            ? h(
              "p",
              { class: "muted" },
              `${
                r.source_event_ids.length - data.source_events.length
              } source events are not stored (or beyond the first 100).`,
            )
            : null,
        ),
      ),
      dialog,
    );
  };

  const edit = () => {
    const r = data.record;
    const title = /** @type {HTMLInputElement} */ (h("input", {
      name: "title",
      value: r.title,
      maxlength: 200,
      required: true,
    }));
    const summary = /** @type {HTMLTextAreaElement} */ (h("textarea", {
      name: "summary",
      rows: 6,
      maxlength: 4000,
      required: true,
    }));
    summary.value = r.summary;
    const facts = /** @type {HTMLTextAreaElement} */ (h("textarea", { name: "facts", rows: 6 }));
    facts.value = r.facts.join("\n");
    const concepts = /** @type {HTMLInputElement} */ (h("input", {
      name: "concepts",
      value: r.concepts.join(", "),
    }));
    const problem = h("div");
    const save = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Save"));
    const form = h(
      "form",
      {
        class: "card edit-form",
        "data-testid": "edit-form",
        onsubmit: async (/** @type {Event} */ e) => {
          e.preventDefault();
          /** @type {Record<string, unknown>} */
          const patch = {};
          const nextFacts = facts.value.split("\n").map((f) => f.trim()).filter(Boolean);
          const nextConcepts = concepts.value.split(",").map((c) => c.trim()).filter(Boolean);
          if (title.value.trim() !== r.title) patch.title = title.value.trim();
          if (summary.value.trim() !== r.summary) patch.summary = summary.value.trim();
          if (JSON.stringify(nextFacts) !== JSON.stringify(r.facts)) patch.facts = nextFacts;
          if (JSON.stringify(nextConcepts) !== JSON.stringify(r.concepts)) {
            patch.concepts = nextConcepts;
          }
          if (Object.keys(patch).length === 0) {
            notice = "Nothing changed.";
            render();
            return;
          }
          save.disabled = true;
          try {
            const updated = await api(`/v1/memories/${encodeURIComponent(r.record_id)}`, {
              method: "PATCH",
              json: patch,
            });
            data = { ...data, record: updated };
            notice = "Saved.";
            render();
          } catch (error) {
            save.disabled = false;
            const details = error instanceof ApiError && Array.isArray(error.details)
              ? error.details.map((/** @type {any} */ d) =>
                `${(d.path ?? []).join(".")}: ${d.message}`
              ).join("; ")
              : "";
            fill(
              problem,
              errorBox(details ? `${/** @type {Error} */ (error).message}: ${details}` : error),
            );
          }
        },
      },
      h("h2", null, "Edit memory"),
      problem,
      h("label", null, "Title", title),
      h("label", null, "Summary", summary),
      h("label", null, "Facts (one per line)", facts),
      h("label", null, "Concepts (comma-separated)", concepts),
      h(
        "div",
        { class: "actions" },
        save,
        h("button", {
          type: "button",
          class: "ghost",
          onclick: () => {
            notice = null;
            render();
          },
        }, "Cancel"),
      ),
    );
    const head = main.querySelector(".detail-head");
    head?.replaceWith(form);
    title.focus();
  };

  /** @param {MemoryRecord} r */
  const forgetDialog = (r) => {
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", {
      "data-testid": "forget-dialog",
      "aria-labelledby": "forget-title",
    }));
    const problem = h("div");
    const confirm = /** @type {HTMLButtonElement} */ (h("button", {
      type: "button",
      class: "danger",
      "data-testid": "confirm-forget",
      onclick: async () => {
        confirm.disabled = true;
        try {
          await api(`/v1/memories/${encodeURIComponent(r.record_id)}`, { method: "DELETE" });
          sessionStorage.setItem(FLASH_KEY, `Forgot “${r.title}”.`);
          location.assign("/ui/memories");
        } catch (error) {
          confirm.disabled = false;
          fill(problem, errorBox(error));
        }
      },
    }, "Forget memory"));
    append(dialog, [
      h("h2", { id: "forget-title" }, "Forget this memory?"),
      h(
        "p",
        null,
        `“${r.title}” will be deleted with its embedding and search entries, and will no longer be injected into prompts. `,
        "The events it came from are kept. This cannot be undone.",
      ),
      problem,
      h(
        "div",
        { class: "actions" },
        h("button", {
          type: "button",
          class: "ghost",
          autofocus: true,
          onclick: () => dialog.close(),
        }, "Cancel"),
        confirm,
      ),
    ]);
    return dialog;
  };

  render();
}

// ---------------------------------------------------------------------------------------------
// Injections ("why was this in my prompt")

/** @param {HTMLElement} main */
async function injectionsPage(main) {
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
  const reasons = {
    empty: "No memory matched this prompt.",
    timeout: "The search ran out of its time budget, so nothing was injected.",
    error: "The search failed, so nothing was injected.",
  };
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
                  reasons[/** @type {keyof typeof reasons} */ (r.outcome)] ?? "Nothing injected.",
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
                      new Set([0, 2]),
                      { "data-testid": "injected-record" },
                    )
                  ),
                  new Set([0, 2]),
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

// ---------------------------------------------------------------------------------------------
// Graph: projects, memories and concepts, laid out by a small force simulation

/**
 * @typedef {{id: string, kind: "project" | "memory" | "concept", label: string, ns: string,
 *   record?: MemoryRecord, project?: Project, records?: MemoryRecord[], r: number, x: number,
 *   y: number}} GraphNode
 */

/** FNV-1a: a stable hash so the same data always lays out the same way. @param {string} text */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Builds nodes and edges (memory–project, memory–concept; concepts are per namespace).
 * @param {MemoryRecord[]} records
 * @param {Project[]} projects
 * @param {boolean} withConcepts
 */
function buildGraph(records, projects, withConcepts) {
  /** @type {Map<string, GraphNode>} */
  const nodes = new Map();
  /** @type {[string, string][]} */
  const edges = [];
  for (const p of projects) {
    nodes.set(`project:${p.namespace}`, {
      id: `project:${p.namespace}`,
      kind: "project",
      label: p.display_name,
      ns: p.namespace,
      project: p,
      r: 16,
      x: 0,
      y: 0,
    });
  }
  for (const r of [...records].sort((a, b) => a.record_id.localeCompare(b.record_id))) {
    const id = `memory:${r.record_id}`;
    nodes.set(id, {
      id,
      kind: "memory",
      label: r.title,
      ns: r.namespace,
      record: r,
      r: 9,
      x: 0,
      y: 0,
    });
    const projectId = `project:${r.namespace}`;
    if (!nodes.has(projectId)) {
      nodes.set(projectId, {
        id: projectId,
        kind: "project",
        label: shortNamespace(r.namespace),
        ns: r.namespace,
        r: 16,
        x: 0,
        y: 0,
      });
    }
    edges.push([id, projectId]);
    if (!withConcepts) continue;
    for (const concept of new Set(r.concepts)) {
      const cid = `concept:${r.namespace}:${concept}`;
      let node = nodes.get(cid);
      if (!node) {
        node = {
          id: cid,
          kind: "concept",
          label: concept,
          ns: r.namespace,
          records: [],
          r: 6,
          x: 0,
          y: 0,
        };
        nodes.set(cid, node);
      }
      node.records?.push(r);
      edges.push([id, cid]);
    }
  }
  for (const node of nodes.values()) {
    if (node.kind === "concept") {
      node.r = 4 + Math.min(6, Math.sqrt(node.records?.length ?? 1) * 1.5);
    }
  }
  return { nodes: [...nodes.values()], edges };
}

/**
 * Fruchterman–Reingold with a pull to the centre. O(n²) per step, so the step count shrinks as
 * the graph grows; at the 500-memory cap this settles in well under a second.
 * @param {GraphNode[]} nodes
 * @param {[string, string][]} edges
 * @param {number} width
 * @param {number} height
 */
function layout(nodes, edges, width, height) {
  const n = nodes.length;
  if (n === 0) return;
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  nodes.forEach((node, i) => {
    const hash = fnv1a(node.id);
    const angle = ((hash % 3600) / 3600) * Math.PI * 2;
    const radius = (((hash >>> 12) % 1000) / 1000) * Math.min(width, height) * 0.45;
    xs[i] = width / 2 + Math.cos(angle) * radius;
    ys[i] = height / 2 + Math.sin(angle) * radius;
  });
  const links = edges.map(([a, b]) => [index.get(a) ?? 0, index.get(b) ?? 0]);
  // Ideal edge length: shrinks as the graph grows, capped so a small graph stays compact.
  const k = Math.min(120, Math.sqrt((width * height) / n) * 0.7);
  const steps = Math.max(60, Math.min(400, Math.floor(3e7 / (n * n))));
  const dx = new Float64Array(n);
  const dy = new Float64Array(n);
  let temperature = width / 8;
  for (let step = 0; step < steps; step++) {
    dx.fill(0);
    dy.fill(0);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let ex = xs[i] - xs[j];
        let ey = ys[i] - ys[j];
        let d2 = ex * ex + ey * ey;
        if (d2 < 0.01) {
          ex = (i - j) * 0.1;
          ey = 0.1;
          d2 = ex * ex + ey * ey;
        }
        const f = (k * k) / d2;
        dx[i] += ex * f;
        dy[i] += ey * f;
        dx[j] -= ex * f;
        dy[j] -= ey * f;
      }
    }
    for (const [a, b] of links) {
      const ex = xs[a] - xs[b];
      const ey = ys[a] - ys[b];
      const d = Math.sqrt(ex * ex + ey * ey) || 0.01;
      const f = d / k;
      dx[a] -= ex * f;
      dy[a] -= ey * f;
      dx[b] += ex * f;
      dy[b] += ey * f;
    }
    for (let i = 0; i < n; i++) {
      dx[i] += (width / 2 - xs[i]) * 0.08 * (k / 10);
      dy[i] += (height / 2 - ys[i]) * 0.08 * (k / 10);
      const len = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]);
      if (len > 0) {
        const move = Math.min(len, temperature);
        xs[i] += (dx[i] / len) * move;
        ys[i] += (dy[i] / len) * move;
      }
    }
    temperature = Math.max(1, temperature * 0.97);
  }
  // Fit the result into the box with a margin.
  const minX = Math.min(...xs),
    maxX = Math.max(...xs),
    minY = Math.min(...ys),
    maxY = Math.max(...ys);
  const scale = Math.min(
    (width - 80) / Math.max(1, maxX - minX),
    (height - 80) / Math.max(1, maxY - minY),
    1.5,
  );
  nodes.forEach((node, i) => {
    node.x = 40 + (xs[i] - minX) * scale + ((width - 80) - (maxX - minX) * scale) / 2;
    node.y = 40 + (ys[i] - minY) * scale + ((height - 80) - (maxY - minY) * scale) / 2;
  });
}

/** @param {HTMLElement} main */
async function graphPage(main) {
  const WIDTH = 1200;
  const HEIGHT = 760;
  const showConcepts =
    /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", checked: true }));
  const count = h("span", { class: "muted", "data-testid": "graph-count" });
  const panel = h("aside", { class: "card graph-panel", "data-testid": "graph-panel" });
  const svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (s("svg", {
    class: "graph",
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "img",
    "aria-label": "Graph of projects, memories and concepts",
    "data-testid": "graph",
  })));
  const viewport = s("g");
  svg.append(viewport);
  const help = () =>
    fill(
      panel,
      h("h2", null, "Details"),
      h("p", { class: "muted" }, "Click a node to see it here. Drag to pan, scroll to zoom."),
    );
  help();
  fill(
    main,
    pageHead(
      "Graph",
      h(
        "span",
        { class: "legend" },
        h("span", null, h("span", { class: "dot project" }), "Project"),
        h("span", null, h("span", { class: "dot memory" }), "Memory"),
        h("span", null, h("span", { class: "dot concept" }), "Concept"),
      ),
      h("label", { class: "inline" }, showConcepts, "Concepts"),
      count,
    ),
    h("div", { class: "graph-layout" }, h("section", { class: "card graph-wrap" }, svg), panel),
  );

  /** @type {Project[]} */
  let projects = [];
  /** @type {MemoryRecord[]} */
  let records = [];
  try {
    const [stats, page] = await Promise.all([api("/v1/stats"), api("/v1/memories?limit=500")]);
    projects = stats.projects;
    records = page.items;
  } catch (error) {
    fill(panel, errorBox(error));
    return;
  }

  /** @type {Map<string, Set<string>>} */
  let neighbours = new Map();
  /** @type {Map<string, GraphNode>} */
  let byId = new Map();

  const draw = () => {
    const { nodes, edges } = buildGraph(records, projects, showConcepts.checked);
    layout(nodes, edges, WIDTH, HEIGHT);
    byId = new Map(nodes.map((n) => [n.id, n]));
    neighbours = new Map(nodes.map((n) => [n.id, new Set([n.id])]));
    const edgeLayer = s("g");
    const nodeLayer = s("g");
    const labelLayer = s("g");
    for (const [a, b] of edges) {
      neighbours.get(a)?.add(b);
      neighbours.get(b)?.add(a);
      const na = /** @type {GraphNode} */ (byId.get(a));
      const nb = /** @type {GraphNode} */ (byId.get(b));
      edgeLayer.append(
        s("line", {
          class: "edge",
          x1: na.x,
          y1: na.y,
          x2: nb.x,
          y2: nb.y,
          "data-a": a,
          "data-b": b,
        }),
      );
    }
    for (const node of nodes) {
      const circle = s("circle", {
        class: `node ${node.kind}`,
        cx: node.x.toFixed(1),
        cy: node.y.toFixed(1),
        r: node.r.toFixed(1),
        "data-node-id": node.id,
        tabindex: 0,
      });
      const title = s("title");
      title.textContent = `${node.kind}: ${node.label}`;
      circle.append(title);
      nodeLayer.append(circle);
      // A small graph gets every label; a big one only projects and shared concepts.
      const labelled = nodes.length <= 60 || node.kind === "project" ||
        (node.kind === "concept" && (node.records?.length ?? 0) >= 2);
      if (labelled) {
        const text = s("text", {
          x: node.x.toFixed(1),
          y: (node.y - node.r - 4).toFixed(1),
          "text-anchor": "middle",
          class: node.kind === "project" ? "project-label" : "",
          "data-for": node.id,
        });
        text.textContent = clip(node.label, node.kind === "memory" ? 32 : 40);
        labelLayer.append(text);
      }
    }
    fill(viewport, edgeLayer, nodeLayer, labelLayer);
    const memoriesShown = nodes.filter((n) => n.kind === "memory").length;
    count.textContent = `${nodes.length} nodes · ${memoriesShown} memories${
      records.length >= 500 ? " (newest 500)" : ""
    }`;
    help();
  };

  /** @param {string | null} id */
  const select = (id) => {
    const keep = id ? neighbours.get(id) : null;
    for (const el of viewport.querySelectorAll("[data-node-id]")) {
      const nid = el.getAttribute("data-node-id") ?? "";
      el.classList.toggle("dim", !!keep && !keep.has(nid));
      el.classList.toggle("selected", nid === id);
    }
    for (const el of viewport.querySelectorAll("line")) {
      const a = el.getAttribute("data-a") ?? "";
      const b = el.getAttribute("data-b") ?? "";
      el.classList.toggle("dim", !!id && a !== id && b !== id);
    }
    for (const el of viewport.querySelectorAll("text")) {
      el.classList.toggle("dim", !!keep && !keep.has(el.getAttribute("data-for") ?? ""));
    }
    const node = id ? byId.get(id) : null;
    if (!node) return help();
    if (node.kind === "project") {
      const p = node.project;
      fill(
        panel,
        h("h2", { "data-testid": "panel-title" }, node.label),
        badge("project"),
        kv({
          Namespace: h("span", { class: "mono" }, node.ns),
          Events: p ? num(p.event_count) : "—",
          Memories: p ? num(p.memory_count) : "—",
        }),
        h(
          "p",
          null,
          h(
            "a",
            { href: `/ui/memories?ns=${encodeURIComponent(node.ns)}` },
            "Browse its memories →",
          ),
        ),
      );
    } else if (node.kind === "memory" && node.record) {
      const r = node.record;
      fill(
        panel,
        h("h2", { "data-testid": "panel-title" }, r.title),
        h("p", null, badge(r.observation_type), " ", badge(r.strategy)),
        h("p", { class: "summary" }, clip(r.summary, 500)),
        r.concepts.length
          ? h("ul", { class: "chips" }, r.concepts.map((c) => h("li", { class: "chip" }, c)))
          : null,
        h(
          "p",
          null,
          h(
            "a",
            { href: `/ui/memories/${r.record_id}`, "data-testid": "panel-open" },
            "Open memory →",
          ),
        ),
      );
    } else {
      const list = node.records ?? [];
      fill(
        panel,
        h("h2", { "data-testid": "panel-title" }, node.label),
        badge("concept"),
        h(
          "p",
          { class: "muted" },
          `${list.length} ${list.length === 1 ? "memory refers" : "memories refer"} to it in ${
            projectName(projects, node.ns)
          }.`,
        ),
        h(
          "ul",
          { class: "plain" },
          list.map((r) => h("li", null, h("a", { href: `/ui/memories/${r.record_id}` }, r.title))),
        ),
      );
    }
  };

  // Pan and zoom by moving the viewBox.
  let view = { x: 0, y: 0, w: WIDTH, h: HEIGHT };
  const applyView = () => svg.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
  /** @param {number} clientX @param {number} clientY */
  const toSvg = (clientX, clientY) => {
    const rect = svg.getBoundingClientRect();
    return {
      x: view.x + ((clientX - rect.left) / rect.width) * view.w,
      y: view.y + ((clientY - rect.top) / rect.height) * view.h,
    };
  };
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const factor = Math.exp(e.deltaY * 0.0015);
    const w = Math.min(WIDTH * 4, Math.max(WIDTH / 12, view.w * factor));
    const scale = w / view.w;
    const p = toSvg(e.clientX, e.clientY);
    view = {
      x: p.x - (p.x - view.x) * scale,
      y: p.y - (p.y - view.y) * scale,
      w,
      h: view.h * scale,
    };
    applyView();
  }, { passive: false });
  /** @type {{x: number, y: number, view: typeof view, moved: boolean} | null} */
  let drag = null;
  svg.addEventListener("pointerdown", (e) => {
    if (/** @type {Element} */ (e.target).closest("[data-node-id]")) return;
    drag = { x: e.clientX, y: e.clientY, view: { ...view }, moved: false };
    svg.setPointerCapture(e.pointerId);
    svg.classList.add("dragging");
  });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const rect = svg.getBoundingClientRect();
    const ddx = e.clientX - drag.x;
    const ddy = e.clientY - drag.y;
    if (Math.abs(ddx) + Math.abs(ddy) > 3) drag.moved = true;
    view = {
      ...drag.view,
      x: drag.view.x - (ddx / rect.width) * drag.view.w,
      y: drag.view.y - (ddy / rect.height) * drag.view.h,
    };
    applyView();
  });
  svg.addEventListener("pointerup", () => {
    if (drag && !drag.moved) select(null);
    drag = null;
    svg.classList.remove("dragging");
  });
  viewport.addEventListener("click", (e) => {
    const target = /** @type {Element} */ (e.target).closest("[data-node-id]");
    if (target) select(target.getAttribute("data-node-id"));
  });
  viewport.addEventListener("keydown", (e) => {
    const target = /** @type {Element} */ (e.target).closest("[data-node-id]");
    if (
      target &&
      (/** @type {KeyboardEvent} */ (e).key === "Enter" || /** @type {KeyboardEvent} */
        (e).key === " ")
    ) {
      e.preventDefault();
      select(target.getAttribute("data-node-id"));
    }
  });
  showConcepts.addEventListener("change", () => {
    view = { x: 0, y: 0, w: WIDTH, h: HEIGHT };
    applyView();
    draw();
  });
  draw();
}

// ---------------------------------------------------------------------------------------------
// Start

/** @type {Record<string, (main: HTMLElement) => Promise<void>>} */
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
  const page = PAGES[main.dataset.page ?? ""];
  if (!page) return;
  try {
    await page(main);
  } catch (error) {
    fill(main, errorBox(error));
  }
  main.dataset.ready = "true";
}

start();
