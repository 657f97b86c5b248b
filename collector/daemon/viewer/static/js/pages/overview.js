// Overview: counts, health, LLM spend, embeddings, latency, projects and recent extraction runs.
import { api, projectName } from "../api.js";
import { badge, card, errorBox, fill, h, kv, pageHead, row, table } from "../dom.js";
import {
  clip,
  millis,
  num,
  outcomeBadge,
  plural,
  shortNamespace,
  sizeOf,
  when,
} from "../format.js";
import { debounce, openFeed } from "../sse.js";

/**
 * @typedef {import("../types.js").LatencySummary} LatencySummary
 * @typedef {import("../types.js").Project} Project
 * @typedef {import("../types.js").Run} Run
 * @typedef {import("../types.js").Stats} Stats
 */

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
export async function overviewPage(main) {
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
      // Team sharing (null when no team is configured): the backlog is local changes waiting
      // for the team database.
      Team: stats.team
        ? `${stats.team.connected ? "connected" : "not connected"} as ${stats.team.role}; ` +
          `backlog ${num(stats.team.backlog)}; ${num(stats.team.pulled_records)} from ` +
          `teammates${stats.team.last_error ? `; ${stats.team.last_error}` : ""}`
        : undefined,
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
      { numeric: new Set([1, 2, 3, 4, 5]), attrs: { "data-testid": `latency-${name}` } },
    );
  const latencyCard = card(
    "Latency (recent requests)",
    latency
      ? table(
        ["Path", "Samples", "p50", "p95", "p99", "Max"],
        [latencyRow("ingest", latency.ingest), latencyRow("retrieval", latency.retrieval)],
        { numeric: new Set([1, 2, 3, 4, 5]) },
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
    // Why the last run failed and when the next one is due: what a broken agent looks like.
    const diagnosis = !st ? null : [
      st.last_run && !st.last_run.ok && st.last_run.error
        ? h(
          "div",
          { class: "muted", title: st.last_run.error, "data-testid": "breaker-error" },
          clip(st.last_run.error, 120),
        )
        : null,
      st.next_attempt_at
        ? h(
          "div",
          { class: "muted", "data-testid": "next-attempt" },
          "next attempt ",
          when(st.next_attempt_at),
        )
        : null,
    ];
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
        [breaker, st?.running ? [" ", badge("running", "warn")] : null, diagnosis],
        last,
      ],
      { numeric: new Set([1, 2, 3]), attrs: { "data-testid": "project-row" } },
    );
  });
  const projectsCard = card(
    "Projects",
    projects.length === 0 ? h("p", { class: "empty" }, "No project has sent anything yet.") : table(
      ["Project", "Events", "Memories", "Queued", "Breaker", "Last extraction"],
      projectRows,
      { numeric: new Set([1, 2, 3]) },
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
          { numeric: new Set([4, 5, 6]), attrs: { "data-testid": "run-row" } },
        )
      ),
      { numeric: new Set([4, 5, 6]) },
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
