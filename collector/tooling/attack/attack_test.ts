// The attack suite, in CI: no secret of the corpus leaks through any way in, and every attack
// is refused as it must be. `deno task attack` prints the same figures.
import assert from "node:assert/strict";
import { type AttackReport, formatReport, runAttackSuite } from "./mod.ts";

Deno.test({
  name: "the attack suite: 0 secrets leaked on every way in, every attack refused",
  // playwright and the MCP SDK's stdio client keep handles the sanitizers cannot attribute.
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const report: AttackReport = await runAttackSuite();
  console.log(formatReport(report));

  await t.step("every secret went in through every way and none came out", () => {
    assert.ok(report.corpus.secrets >= 150 && report.corpus.kinds >= 40, "the corpus shrank");
    assert.equal(report.channels.length, 11);
    for (const c of report.channels) {
      assert.equal(c.tried, report.corpus.secrets, c.channel);
      assert.deepEqual(c.where, [], `${c.channel} leaked`);
      assert.equal(c.leaked, 0, c.channel);
      assert.ok(c.bytesSearched > 0, `${c.channel}: nothing searched`);
    }
    // The tries were real: what should be stored was (one event or record per secret at least).
    for (const c of report.channels.filter((c) => !/search|retrieval/.test(c.channel))) {
      assert.ok(c.stored >= c.tried, `${c.channel}: only ${c.stored} stored`);
    }
  });

  await t.step("every attack was refused, and the attacks were real", () => {
    assert.equal(report.attacks.length, 17);
    for (const a of report.attacks) {
      assert.deepEqual(a.failures, [], a.attack);
      assert.equal(a.held, a.tried, a.attack);
      assert.ok(a.tried > 0, `${a.attack}: nothing tried`);
    }
  });
});
