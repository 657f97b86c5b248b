// DOM helpers. Data only ever enters the page as text nodes or attribute values (never as HTML),
// so a memory that contains markup cannot script the viewer.

/** @typedef {string | Node | null | undefined | false | any[]} Child */

/**
 * Creates an element. `props` keys starting with `on` are listeners; others are attributes
 * (skipped when null, undefined or false). Children are text or nodes.
 * @param {string} tag
 * @param {Record<string, any> | null} [props]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, props, ...children) {
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
export function append(el, children) {
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
export function fill(el, ...children) {
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
export function s(tag, attrs = {}) {
  const el = /** @type {SVGElement} */ (document.createElementNS(SVG_NS, tag));
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

/**
 * @param {string} title
 * @param {...Child} extra
 */
export function pageHead(title, ...extra) {
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
export function card(title, ...children) {
  return h("section", { class: "card" }, title ? h("h2", null, title) : null, ...children);
}

/** @param {unknown} error */
export function errorBox(error) {
  const message = error instanceof Error ? error.message : String(error);
  return h("div", { class: "error", role: "alert" }, message);
}

/** @param {Record<string, Child>} pairs */
export function kv(pairs) {
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
export function badge(text, tone = "") {
  return h("span", { class: `badge ${tone}`.trim() }, text);
}

/**
 * @param {string[]} headers
 * @param {Node[]} rows
 * @param {{numeric?: Set<number>}} [options] the columns to right-align as numbers
 */
export function table(headers, rows, { numeric = new Set() } = {}) {
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
 * @param {{numeric?: Set<number>, attrs?: Record<string, any>}} [options] the columns to
 *   right-align as numbers, and the row's attributes
 */
export function row(cells, { numeric = new Set(), attrs = {} } = {}) {
  return h("tr", attrs, cells.map((c, i) => h("td", { class: numeric.has(i) ? "num" : null }, c)));
}
