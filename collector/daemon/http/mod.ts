/**
 * HTTP plumbing shared by the API routes and the viewer: JSON error responses, bounded JSON
 * bodies, query parameters, and the Host, Origin and bearer-token checks.
 *
 * @module
 */
export * from "./body.ts";
export * from "./errors.ts";
export * from "./params.ts";
export * from "./security.ts";
