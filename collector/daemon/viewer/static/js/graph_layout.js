// The graph's data and layout: projects, memories and concepts as nodes, placed by a small force
// simulation. No DOM here, so the layout can be tested outside a browser (client_test.ts).
import { shortNamespace } from "./format.js";

/**
 * @typedef {import("./types.js").MemoryRecord} MemoryRecord
 * @typedef {import("./types.js").Project} Project
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
 * @param {{withConcepts: boolean}} options
 */
export function buildGraph(records, projects, { withConcepts }) {
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
 * @param {{nodes: GraphNode[], edges: [string, string][]}} graph
 * @param {{width: number, height: number}} box
 */
export function layout({ nodes, edges }, { width, height }) {
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
