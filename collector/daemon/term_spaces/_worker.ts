/**
 * Worker side of term-space training: receives a namespace's training documents page by page
 * (`{type: "docs"}`), then `{type: "train"}`, and answers with the encoded space or the error.
 * Pure computation: the Worker is started with read access to its code and nothing else.
 *
 * @module
 */
import {
  encodeTermSpace,
  recordTermSpaceBuilder,
  type TermSpaceDoc,
} from "@kiro-learn/core/search";

/** A message from the collector. */
export type TermSpaceWorkerRequest =
  | { type: "docs"; docs: TermSpaceDoc[] }
  | { type: "train" };

/** The Worker's answer to `train`. */
export type TermSpaceWorkerReply =
  | { type: "trained"; data: Uint8Array; terms: number }
  | { type: "error"; error: string };

// deno-lint-ignore no-explicit-any
const scope = self as any as {
  postMessage(message: TermSpaceWorkerReply, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<TermSpaceWorkerRequest>) => void) | null;
};

// Each page is reduced to term ids as it arrives (the text is not kept): a large namespace's
// records never sit here as strings.
const builder = recordTermSpaceBuilder();
scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "docs") {
    for (const doc of message.docs) builder.add(doc);
    return;
  }
  try {
    const space = builder.build();
    const data = encodeTermSpace(space);
    scope.postMessage({ type: "trained", data, terms: space.columns.size }, [
      data.buffer as ArrayBuffer,
    ]);
  } catch (error) {
    scope.postMessage({
      type: "error",
      error: error instanceof Error ? error.message : String(error),
    });
  }
};
