// The collector's JSON API, called with the session cookie and the session's key. All requests go
// to this origin; the browser adds the Origin header the collector requires for changes.
import { h } from "./dom.js";
import { shortNamespace } from "./format.js";
import { sessionHeaders } from "./session.js";

/** @typedef {import("./types.js").Project} Project */

/** A refused or failed API call: the status and the API's error and details. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {{details?: unknown}} [options]
   */
  constructor(status, message, { details } = {}) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

/**
 * Calls the collector with the session cookie and key. A 401 means the session ended: reloading shows
 * the server's "how to open the viewer" page.
 * @param {string} path
 * @param {RequestInit & {json?: unknown}} [init]
 * @returns {Promise<any>}
 */
export async function api(path, init = {}) {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set("content-type", "application/json");
  if (path.startsWith("/v1/")) {
    for (const [name, value] of Object.entries(sessionHeaders())) headers.set(name, value);
  }
  const response = await fetch(path, {
    ...rest,
    credentials: "same-origin",
    headers,
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
    throw new ApiError(response.status, b?.error ?? `HTTP ${response.status}`, {
      details: b?.details,
    });
  }
  return body;
}

/** @returns {Promise<Project[]>} */
export async function loadProjects() {
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
export function projectName(projects, ns) {
  return projects.find((p) => p.namespace === ns)?.display_name ?? shortNamespace(ns);
}

/**
 * A `<select>` of projects, with "All projects" first.
 * @param {Project[]} projects
 * @param {string} selected
 */
export function projectSelect(projects, selected) {
  return h(
    "select",
    { name: "ns", id: "project" },
    h("option", { value: "" }, "All projects"),
    projects.map((p) =>
      h(
        "option",
        { value: p.namespace, selected: p.namespace === selected },
        `${p.display_name} (${p.memory_count})`,
      )
    ),
  );
}
