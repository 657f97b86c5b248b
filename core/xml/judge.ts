/**
 * The reconciliation judge's wire format (seed 002): the request that shows a candidate cluster
 * and its neighbour pool, and the parser for the judge's merge or keep-separate answer.
 *
 * Unlike kiro-learn, the merged record's fields are bounded exactly like an extracted record's,
 * so an oversized judge answer cannot reach storage.
 *
 * @module
 */
import type { ObservationType } from "../schemas/mod.ts";
import { escapeXml } from "./escape.ts";
import {
  firstText,
  normalizeObservationType,
  parseRecordFields,
  type RecordFields,
} from "./records.ts";
import { elementText, findOpenTag, hasOpenTag, parseAttributes, scanElements } from "./_scan.ts";

/** Most record ids one merge may cite; far above any real cluster plus its neighbour pool. */
export const MAX_MERGED_IDS = 200;

/** A candidate record in the cluster being judged. */
export interface JudgeCandidate {
  /** The candidate's (not yet stored) record id. */
  record_id: string;
  /** Title. */
  title: string;
  /** Summary. */
  summary: string;
  /** Facts. */
  facts: readonly string[];
  /** Concepts. */
  concepts: readonly string[];
  /** Files touched. */
  files_touched: readonly string[];
  /** Observation type. */
  observation_type: string;
}

/** An existing record near the cluster's centroid. */
export interface JudgeNeighbor {
  /** The stored record's id. */
  record_id: string;
  /** Title. */
  title: string;
  /** Summary. */
  summary: string;
  /** Facts. */
  facts: readonly string[];
  /** Cosine similarity to the cluster centroid. */
  similarity: number;
}

/** The input of {@link frameJudgeRequest}. */
export interface JudgeRequest {
  /** The candidate cluster, in cluster order. */
  candidates: readonly JudgeCandidate[];
  /** The neighbour pool, usually by similarity descending. */
  neighbors: readonly JudgeNeighbor[];
}

/** The record a merge decision proposes. */
export interface JudgeMergedRecord extends RecordFields {
  /** The judge's type, absent when it gave none or an unknown one. */
  observation_type?: ObservationType;
}

/** What a judge reply amounts to. */
export type JudgeResult =
  | { kind: "keep_separate" }
  | { kind: "merge"; merged_ids: string[]; record: JudgeMergedRecord }
  | { kind: "invalid" };

/** Frames the judge prompt: `<reconciliation_request>` with the cluster and the neighbour pool. */
export function frameJudgeRequest(request: JudgeRequest): string {
  const lines = ["<reconciliation_request>", "<candidate_cluster>"];
  for (const candidate of request.candidates) {
    lines.push(
      `<candidate record_id="${escapeXml(candidate.record_id)}">`,
      element("title", candidate.title),
      element("summary", candidate.summary),
      list("facts", "fact", candidate.facts),
      list("concepts", "concept", candidate.concepts),
      list("files", "file", candidate.files_touched),
      element("observation_type", candidate.observation_type),
      "</candidate>",
    );
  }
  lines.push("</candidate_cluster>", "<neighbor_pool>");
  for (const neighbor of request.neighbors) {
    lines.push(
      `<neighbor record_id="${escapeXml(neighbor.record_id)}" similarity="${
        formatSimilarity(neighbor.similarity)
      }">`,
      element("title", neighbor.title),
      element("summary", neighbor.summary),
      list("facts", "fact", neighbor.facts),
      "</neighbor>",
    );
  }
  lines.push("</neighbor_pool>", "</reconciliation_request>");
  return lines.join("\n");
}

/**
 * Parses a judge reply. A `<keep_separate>` element (self-closing or not) is checked first and
 * wins; otherwise a `<merge>` needs at least one `<merged_record_id>` and a title and summary.
 * Anything else is invalid. Never throws; linear in the length of `text`.
 */
export function parseJudgeResponse(text: string): JudgeResult {
  try {
    if (hasOpenTag(text, "keep_separate")) return { kind: "keep_separate" };
    const merge = scanElements(text, "merge", { limit: 1 })[0] ?? unclosedMerge(text);
    if (!merge) return { kind: "invalid" };
    const ids = new Set<string>();
    for (const found of scanElements(merge.inner, "merged_record_id")) {
      const id = elementText(found.inner);
      if (id !== "") ids.add(id);
      if (ids.size >= MAX_MERGED_IDS) break;
    }
    // A wrapper such as <merged_record_ids>a, b</merged_record_ids> is not the format; ignore it.
    if (ids.size === 0) return { kind: "invalid" };
    const fields = parseRecordFields(merge.inner);
    if (!fields) return { kind: "invalid" };
    const type = normalizeObservationType(
      firstText(merge.inner, "observation_type") ?? parseAttributes(merge.attrs).get("type"),
    );
    const record: JudgeMergedRecord = type ? { ...fields, observation_type: type } : fields;
    return { kind: "merge", merged_ids: [...ids], record };
  } catch {
    return { kind: "invalid" };
  }
}

/** A `<merge>` whose close tag the model never wrote (a cut-off reply): read to the end. */
function unclosedMerge(text: string): { attrs: string; inner: string } | undefined {
  const open = findOpenTag(text, "merge");
  if (open < 0) return undefined;
  const gt = text.indexOf(">", open);
  if (gt < 0) return undefined;
  return { attrs: text.slice(open + 6, gt), inner: text.slice(gt + 1) };
}

function element(name: string, value: string): string {
  return `<${name}>${escapeXml(value)}</${name}>`;
}

function list(wrapper: string, name: string, values: readonly string[]): string {
  return `<${wrapper}>${values.map((value) => element(name, value)).join("")}</${wrapper}>`;
}

function formatSimilarity(value: number): string {
  return Number.isFinite(value) ? value.toFixed(4) : "0.0000";
}
