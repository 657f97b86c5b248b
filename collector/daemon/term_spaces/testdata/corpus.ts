// A project's memory in miniature, for the term-space tests: fixes whose titles name the symptom
// ("crash") while their summaries name the cause (a NULL pointer dereference), fixes titled by
// the cause alone, and unrelated changes (docs, build, tests, performance) around them.
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { makeRecord } from "@kiro-learn/core/testing";

const COMPONENTS = ["netdev", "ofproto", "dpif", "vswitchd", "ovsdb", "lacp", "bond", "tunnel"];
const OBJECTS = ["port", "bridge", "flow table", "mirror", "queue", "meter", "group", "rule"];

/** `count` records (at least 200) of one namespace; deterministic. */
export function projectRecords(namespace: string, count: number): MemoryRecord[] {
  const out: MemoryRecord[] = [];
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  for (let i = 0; out.length < count; i++) {
    const c = COMPONENTS[i % COMPONENTS.length];
    const o = OBJECTS[(i * 3) % OBJECTS.length];
    const file = `lib/${c}.c`;
    const kinds: Partial<MemoryRecord>[] = [
      {
        title: `${c}: fix crash when the ${o} is removed`,
        summary: `The daemon crashed with a segfault: a NULL pointer dereference of the ${o} ` +
          `after it was freed. Check the pointer before use.`,
      },
      {
        title: `${c}: avoid NULL pointer dereference on ${o} teardown`,
        summary: `A freed ${o} pointer was dereferenced during teardown, a segfault; the ` +
          `pointer is now cleared and checked.`,
      },
      {
        title: `${c}: document the ${o} options in the manual`,
        summary: `Describe each ${o} option with an example in the manual page and the FAQ.`,
      },
      {
        title: `${c}: speed up ${o} lookup with a hash map`,
        summary: `Lookups walked a list; a hash map makes them constant time under load.`,
      },
      {
        title: `tests: add unit tests for ${c} ${o} parsing`,
        summary: `Cover the parser's error paths and the ${o} keywords in the test suite.`,
      },
      {
        title: `build: fix ${c} compile warning with newer compilers`,
        summary: `An unused variable and a sign comparison warned under the new toolchain.`,
      },
    ];
    const kind = kinds[i % kinds.length];
    out.push(makeRecord({
      namespace,
      title: kind.title!,
      summary: kind.summary!,
      files_touched: [file, `tests/${c}.at`],
      created_at: at(i),
    }));
  }
  return out;
}

/**
 * The guard's prompt and its two candidates: the answer names the cause ("freed pointer",
 * "dereference") and shares no word with the prompt's symptom ("crashes", "segfault"), the
 * other is about the manual; both match the prompt's identifier in their summaries only.
 */
export function guardPair(namespace: string): {
  prompt: string;
  answer: MemoryRecord;
  other: MemoryRecord;
} {
  // One instant for both: the reranker's `term_origin` credits the older holder of a shared term,
  // so two records made a millisecond apart would let age, not meaning, decide the guard.
  const created_at = new Date().toISOString();
  return {
    prompt: "meter_delete crashes with a segfault",
    answer: makeRecord({
      namespace,
      created_at,
      title: "Check the freed pointer before dereference",
      summary: "meter_delete used the meter after it was freed.",
      files_touched: ["lib/meter.c"],
    }),
    other: makeRecord({
      namespace,
      created_at,
      title: "Manual page for the options",
      summary: "meter_delete options are described in the manual.",
      files_touched: ["lib/meter.c"],
    }),
  };
}
