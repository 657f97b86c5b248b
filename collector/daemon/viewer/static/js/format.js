// How numbers, durations, times and outcomes read on every page.
import { badge, h } from "./dom.js";

/** @param {number | null | undefined} n */
export function num(n) {
  return typeof n === "number" ? n.toLocaleString() : "—";
}

/**
 * @param {number} n
 * @param {string} one
 * @param {{many?: string}} [options] the plural when it is not `one` + "s"
 */
export function plural(n, one, { many = one + "s" } = {}) {
  return `${num(n)} ${n === 1 ? one : many}`;
}

/** @param {number | null | undefined} ms */
export function millis(ms) {
  if (typeof ms !== "number") return "—";
  return `${
    ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms).toLocaleString()
  } ms`;
}

/** @param {string | undefined | null} iso */
export function when(iso) {
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
export function clock(iso) {
  const date = iso ? new Date(iso) : new Date();
  return h(
    "time",
    { datetime: date.toISOString(), title: date.toISOString() },
    date.toLocaleTimeString(),
  );
}

/** @param {string} text @param {number} max */
export function clip(text, max) {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** @param {number} bytes */
export function sizeOf(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** @param {string} ns */
export function shortNamespace(ns) {
  const match = /\/project\/([^/]+)\/$/.exec(ns);
  return match ? `project ${match[1].slice(0, 10)}` : ns;
}

/** @param {string} outcome */
export function outcomeBadge(outcome) {
  const tone = outcome === "ok"
    ? "ok"
    : outcome === "failed" || outcome === "error" || outcome === "timeout"
    ? "bad"
    : outcome === "partial"
    ? "warn"
    : "";
  return badge(outcome, tone);
}
