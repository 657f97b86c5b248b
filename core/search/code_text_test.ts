import assert from "node:assert/strict";
import {
  codeParts,
  filesText,
  queryTokens,
  splitWord,
  stem,
  textWords,
  titlePrefix,
} from "./code_text.ts";

Deno.test("codeParts adds the camelCase and letter/digit parts the tokenizer cannot see", () => {
  assert.equal(codeParts("call getUserById on the HTTPServer"), "get user by id http server");
  assert.equal(codeParts("mlx5e driver"), "mlx");
  // snake_case and paths are already split by the tokenizer: nothing to add.
  assert.equal(codeParts("ofproto_dpif_xlate in lib/netdev-dpdk.c"), "");
});

Deno.test("queryTokens: words, identifier parts, and multi-part identifiers whole", () => {
  assert.deepEqual(queryTokens("drop-stats: Suppress errant flow_del log."), [
    "drop",
    "stats",
    "drop stats",
    "suppress",
    "errant",
    "flow",
    "del",
    "flow del",
    "log",
  ]);
  assert.deepEqual(queryTokens("why does getUserById fail"), [
    "why",
    "does",
    "getuserbyid",
    "get",
    "user",
    "by",
    "id",
    "fail",
  ]);
  assert.deepEqual(queryTokens(" \n\t "), []);
  // Control characters are spaces, and a pasted log stays bounded.
  assert.deepEqual(queryTokens("a\u0000b"), ["a", "b"]);
  assert.equal(queryTokens(Array.from({ length: 500 }, (_, i) => `w${i}x`).join(" ")).length, 96);
});

Deno.test("titlePrefix finds a subsystem: prefix and nothing else", () => {
  assert.equal(titlePrefix("ovn-northd: Fix crash when lb has no vips."), "ovn-northd");
  assert.equal(titlePrefix("netdev-dpdk, tests: add check"), "netdev-dpdk, tests");
  assert.equal(titlePrefix("Fix: the thing"), "fix");
  assert.equal(titlePrefix("no prefix here"), null);
  assert.equal(titlePrefix("http://example.com is down"), null);
});

Deno.test("textWords and filesText", () => {
  assert.deepEqual(textWords("Déjà vu: lib/netdev.c"), ["déjà", "vu", "lib", "netdev", "c"]);
  assert.equal(filesText(["a/b.c", "d.h"]), "a/b.c d.h");
});

Deno.test("splitWord: parts at camelCase and letter/digit boundaries, none for a plain word", () => {
  assert.deepEqual(splitWord("getUserById"), ["get", "user", "by", "id"]);
  assert.deepEqual(splitWord("mlx5e"), ["mlx"]);
  assert.deepEqual(splitWord("HTTPServer"), ["http", "server"]);
  assert.deepEqual(splitWord("plain"), []);
});

Deno.test("stem: a plural and a verb's endings come off long words only", () => {
  assert.equal(stem("crashes"), "crash");
  assert.equal(stem("freeing"), "free");
  assert.equal(stem("ports"), "port");
  assert.equal(stem("bus"), "bus", "short words are kept whole");
  assert.equal(stem("crash"), "crash");
});
