import assert from "node:assert/strict";
import { DOWN_NOTICE_FILE, firstDownNotice } from "./_down_notice.ts";

Deno.test("the collector-down notice: once per session, again for the next session", () => {
  const dir = Deno.makeTempDirSync();
  const spool = `${dir}/spool`;
  try {
    assert.equal(firstDownNotice(spool, "s-1"), true, "a session's first ask is told");
    assert.equal(firstDownNotice(spool, "s-1"), false, "its second ask is not");
    assert.equal(firstDownNotice(spool, "s-1"), false);
    assert.equal(firstDownNotice(spool, "s-2"), true, "another session is told");
    assert.equal(Deno.readTextFileSync(`${spool}/${DOWN_NOTICE_FILE}`), "s-2");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the collector-down notice: a mark that cannot be written still tells the session", () => {
  const dir = Deno.makeTempDirSync();
  try {
    // The spool path is a file, so neither the folder nor the mark can be created.
    Deno.writeTextFileSync(`${dir}/spool`, "");
    assert.equal(firstDownNotice(`${dir}/spool`, "s-1"), true);
    assert.equal(firstDownNotice(`${dir}/spool`, "s-1"), true);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
