import assert from "node:assert/strict";
import { secretNeedles, secretsOnDisk } from "./data_dir_scan.ts";

const SECRET = { kind: "github_pat", secret: "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" };

Deno.test("a secret is found whole, or as an index token's lower-cased tail, in any file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/spool/rejected`, { recursive: true });
    await Deno.writeTextFile(`${dir}/clean.log`, "nothing here but [REDACTED:github_pat]\n");
    assert.deepEqual(await secretsOnDisk(dir, [SECRET]), []);
    await Deno.writeFile(
      `${dir}/spool/rejected/a.json`,
      new Uint8Array([0, 255, ...new TextEncoder().encode(SECRET.secret), 0]),
    );
    // What an FTS5 leaf holds: the token lower-cased, its first bytes shared with the previous term.
    await Deno.writeTextFile(
      `${dir}/db`,
      "\u0003" + "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8".slice(3),
    );
    assert.deepEqual((await secretsOnDisk(dir, [SECRET])).map((f) => f.file).sort(), [
      "db",
      "spool/rejected/a.json",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("short runs are looked for only as part of the whole secret", () => {
  assert.deepEqual(secretNeedles("pass=hunter2"), ["pass=hunter2"]);
  assert.deepEqual(secretNeedles("xoxb-1234567890-abcdefghijKLM"), [
    "xoxb-1234567890-abcdefghijKLM",
    "1234567890",
    "defghijklm",
  ]);
});
