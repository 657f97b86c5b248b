/**
 * The browser's `static/js/enums.js`, generated from the collector's own constants, so the
 * viewer's filters, feed and router cannot drift from what the API accepts, the bus sends and
 * the shell renders. The file is checked in (the browser, `deno check` and the client check read
 * it like any module) and _enums_test.ts fails as soon as it differs from what this generates.
 *
 * The lists whose source is only a type (bus message types, retrieval outcomes, the shell's page
 * names) are spelled out here as `Record<Union, true>`: the compiler refuses a missing or an
 * extra key, so they follow the type.
 *
 * @module
 */
import { OBSERVATION_TYPES, STRATEGIES } from "@kiro-learn/core/schemas";
import type { RetrievalLog } from "@kiro-learn/core/storage";
import type { BusMessage } from "../runtime/mod.ts";
import type { PageName } from "./_pages.tsx";
import { STATIC_ROOT } from "./_static.ts";
import { SESSION_KEY } from "./sessions.ts";

/** Where the generated module lives, relative to the static root. */
export const ENUMS_ASSET = "js/enums.js";

const FEED_TYPES: Record<BusMessage["type"], true> = {
  event: true,
  run: true,
  retrieval: true,
  record_saved: true,
  records_deleted: true,
};

const PAGE_NAMES: Record<PageName, true> = {
  overview: true,
  feed: true,
  memories: true,
  memory: true,
  injections: true,
  graph: true,
};

const RETRIEVAL_OUTCOMES: Record<RetrievalLog["outcome"], true> = {
  ok: true,
  empty: true,
  timeout: true,
  error: true,
};

/** The values `enums.js` exports, by export name. */
export const CLIENT_ENUMS: Readonly<Record<string, { doc: string; values: readonly string[] }>> = {
  OBSERVATION_TYPES: { doc: "What a memory records.", values: OBSERVATION_TYPES },
  STRATEGIES: { doc: "How a memory was made.", values: STRATEGIES },
  FEED_TYPES: { doc: "The live feed's message types.", values: Object.keys(FEED_TYPES) },
  PAGE_NAMES: {
    doc: "The `data-page` names the page shell renders.",
    values: Object.keys(PAGE_NAMES),
  },
  RETRIEVAL_OUTCOMES: {
    doc: "How a retrieval for a prompt ended.",
    values: Object.keys(RETRIEVAL_OUTCOMES),
  },
};

/** Single constants `enums.js` exports (frozen objects of strings), by export name. */
export const CLIENT_CONSTANTS: Readonly<
  Record<string, { doc: string; value: Readonly<Record<string, string>> }>
> = {
  SESSION_KEY: {
    doc: "Where the viewer session's key travels and is kept (see the collector's sessions.ts).",
    value: SESSION_KEY,
  },
};

/** The source of `enums.js`: one `as const` array per enum, so the client check sees literals. */
export function enumsModule(): string {
  const lines = [
    "// Generated from the collector's own constants by collector/daemon/viewer/_enums.ts; do not",
    "// edit. Regenerate: deno run --allow-write collector/daemon/viewer/_enums.ts",
  ];
  for (const [name, { doc, values }] of Object.entries(CLIENT_ENUMS)) {
    lines.push(
      "",
      `/** ${doc} */`,
      `export const ${name} = /** @type {const} */ ([`,
      ...values.map((v) => `  ${JSON.stringify(v)},`),
      "]);",
    );
  }
  for (const [name, { doc, value }] of Object.entries(CLIENT_CONSTANTS)) {
    lines.push(
      "",
      `/** ${doc} */`,
      `export const ${name} = /** @type {const} */ ({`,
      ...Object.entries(value).map(([k, v]) => `  ${k}: ${JSON.stringify(v)},`),
      "});",
    );
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile(`${STATIC_ROOT}/${ENUMS_ASSET}`, enumsModule());
}
