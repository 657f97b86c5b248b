/**
 * The product version, one source of truth (the member `deno.json` files carry the same).
 *
 * @module
 */

/** kiro-learn's version. */
export const VERSION = "0.1.0";
