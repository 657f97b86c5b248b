/**
 * The derived search text of a record (changed paths, identifier parts), written with it and
 * re-derived at open for rows of an older version.
 *
 * @module
 */
import type { MemoryRecord } from "../schemas/mod.ts";
import { codeParts, filesText, SEARCH_TEXT_VERSION } from "../search/mod.ts";
import type { DatabaseSync } from "node:sqlite";

/** The derived, indexed search text of a record (see `core/search/code_text.ts`). */
export function searchText(
  record: Pick<MemoryRecord, "title" | "summary" | "facts" | "files_touched">,
): {
  files: string;
  code: string;
} {
  return {
    files: filesText(record.files_touched),
    code: codeParts(
      `${record.title}\n${record.summary}\n${record.facts.join("\n")}\n${
        record.files_touched.join("\n")
      }`,
    ),
  };
}

/**
 * Re-derives the search text of rows written by an older version (or before the columns
 * existed), in batches of one transaction each; the update trigger re-indexes them.
 */
export function deriveSearchText(db: DatabaseSync): void {
  const select = db.prepare(
    `SELECT id, title, summary, facts_json, files_touched_json FROM memory_records
    WHERE search_version < ? LIMIT 500`,
  );
  const update = db.prepare(
    "UPDATE memory_records SET files_text = ?, code_text = ?, search_version = ? WHERE id = ?",
  );
  for (;;) {
    const rows = select.all(SEARCH_TEXT_VERSION) as {
      id: number;
      title: string;
      summary: string;
      facts_json: string;
      files_touched_json: string;
    }[];
    if (rows.length === 0) return;
    db.exec("BEGIN IMMEDIATE");
    try {
      for (const row of rows) {
        const text = searchText({
          title: row.title,
          summary: row.summary,
          facts: JSON.parse(row.facts_json),
          files_touched: JSON.parse(row.files_touched_json),
        });
        update.run(text.files, text.code, SEARCH_TEXT_VERSION, row.id);
      }
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}
