// The README is the user's contract: its commands, version and settings table must match the code.
import assert from "node:assert/strict";
import { DEFAULTS } from "../settings/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const readme = await Deno.readTextFile(new URL("README.md", ROOT));
const version = (await Deno.readTextFile(new URL(".deno-version", ROOT))).trim();
const ci = await Deno.readTextFile(new URL(".ci/run", ROOT));

Deno.test("the README opens with the two commands, at the pinned Deno version", () => {
  assert.ok(readme.includes(`npx -y deno@${version} task serve`));
  assert.ok(readme.includes(`npx -y deno@${version} task test`));
  assert.ok(readme.includes("deno task serve") && readme.includes("deno task test"));
});

Deno.test("CI runs exactly the README's test command", () => {
  assert.ok(ci.includes(`npx -y deno@${version} task test`));
  assert.ok(ci.includes("task check"));
});

Deno.test("every settings key is documented with its default", () => {
  for (const [section, values] of Object.entries(DEFAULTS)) {
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      const row = readme.split("\n").find((l) =>
        new RegExp(`^\\| \`${section}\\.${key}\` +\\|`).test(l)
      );
      assert.ok(row, `${section}.${key} is missing from the README settings table`);
      const shown = Array.isArray(value) ? JSON.stringify(value) : String(value);
      assert.ok(
        row.includes(shown),
        `${section}.${key}: README does not show the default ${shown}`,
      );
    }
  }
});
