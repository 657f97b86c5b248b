/**
 * Test helpers shared across members: arbitraries and small fixtures builders.
 *
 * @module
 */
export * from "./arbitraries.ts";
export * from "./fixtures.ts";
export * from "./corpus.ts";
export * from "./stats.ts";
export * from "./hang_guard.ts";
export * from "./workspace_rules.ts";
export * from "./collector_stub.ts";
export * from "./remote_imports.ts";
export * from "./impostor.ts";
export * from "./namespace_rows.ts";
export * from "./git_repo.ts";
export * from "./deno_script.ts";
export * from "./outside_connections.ts";
export * from "./recording_proxy.ts";
export * from "./launcher_grants.ts";
