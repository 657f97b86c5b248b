/**
 * Term spaces: each namespace's latent topic space, trained in a Worker off the request path,
 * stored in SQLite, and used by the ranked search's `term_space` reranker column.
 *
 * @module
 */
export * from "./service.ts";
