// Graph: projects, memories and concepts as an SVG to pan, zoom and click through.
import { api, projectName } from "../api.js";
import { badge, errorBox, fill, h, kv, pageHead, s } from "../dom.js";
import { clip, num } from "../format.js";
import { buildGraph, layout } from "../graph_layout.js";

/**
 * @typedef {import("../graph_layout.js").GraphNode} GraphNode
 * @typedef {import("../types.js").MemoryRecord} MemoryRecord
 * @typedef {import("../types.js").Project} Project
 */

/** @param {HTMLElement} main */
export async function graphPage(main) {
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
    const { nodes, edges } = buildGraph(records, projects, { withConcepts: showConcepts.checked });
    layout({ nodes, edges }, { width: WIDTH, height: HEIGHT });
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
