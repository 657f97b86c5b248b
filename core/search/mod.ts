/**
 * Search: the query rewrite and the context formatter.
 *
 * @module
 */
export * from "./query_rewrite.ts";
export * from "./context_format.ts";
