// The browser modules that need no DOM, run in Deno: the graph's data and layout.
import assert from "node:assert/strict";
import { makeRecord } from "@kiro-learn/core/testing";
import { buildGraph, layout } from "./static/js/graph_layout.js";

const NS_A = `/actor/me/project/${"a".repeat(64)}/`;
const BOX = { width: 1200, height: 760 };
const NS_B = `/actor/me/project/${"b".repeat(64)}/`;

function records() {
  return [
    makeRecord({ namespace: NS_A, concepts: ["sqlite", "wal"] }),
    makeRecord({ namespace: NS_A, concepts: ["sqlite"] }),
    makeRecord({ namespace: NS_B, concepts: ["sqlite", "sqlite"] }),
  ];
}

Deno.test("buildGraph: memories link to their project and, per namespace, their concepts", () => {
  const project = {
    namespace: NS_A,
    project_id: "a".repeat(64),
    display_name: "~/a",
    event_count: 1,
    memory_count: 2,
  };
  const { nodes, edges } = buildGraph(records(), [project], { withConcepts: true });
  const kinds = nodes.map((n) => n.kind).sort();
  // Projects A (listed) and B (from a record), three memories, concepts sqlite@A, wal@A, sqlite@B.
  assert.deepEqual(kinds, [
    "concept",
    "concept",
    "concept",
    "memory",
    "memory",
    "memory",
    "project",
    "project",
  ]);
  assert.equal(nodes.find((n) => n.id === `project:${NS_A}`)?.label, "~/a");
  assert.equal(nodes.find((n) => n.id === `project:${NS_B}`)?.label, "project bbbbbbbbbb");
  assert.equal(nodes.find((n) => n.id === `concept:${NS_A}:sqlite`)?.records?.length, 2);
  assert.equal(edges.length, 3 + 4, "one project edge per memory, one per distinct concept");
  const bare = buildGraph(records(), [project], { withConcepts: false });
  assert.equal(bare.nodes.filter((n) => n.kind === "concept").length, 0);
});

Deno.test("layout: deterministic, and every node lands inside the box", () => {
  const data = records();
  const place = () => {
    const graph = buildGraph(data, [], { withConcepts: true });
    layout(graph, BOX);
    return graph.nodes;
  };
  const first = place();
  assert.deepEqual(place(), first);
  for (const node of first) {
    assert.ok(node.x >= 40 && node.x <= 1160, `${node.id} x ${node.x}`);
    assert.ok(node.y >= 40 && node.y <= 720, `${node.id} y ${node.y}`);
  }
  layout({ nodes: [], edges: [] }, BOX);
});
