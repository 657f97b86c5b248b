// The README and the configuration page are the user's contract: the README's commands and version,
// and the settings table of docs/configuration.md, must match the code.
import assert from "node:assert/strict";
import { DEFAULTS } from "../settings/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const readme = await Deno.readTextFile(new URL("README.md", ROOT));
const version = (await Deno.readTextFile(new URL(".deno-version", ROOT))).trim();
const configuration = await Deno.readTextFile(new URL("docs/configuration.md", ROOT));
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

Deno.test("every settings key is documented with its default in docs/configuration.md", () => {
  for (const [section, values] of Object.entries(DEFAULTS)) {
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      const row = configuration.split("\n").find((l) =>
        new RegExp(`^\\| \`${section}\\.${key}\` +\\|`).test(l)
      );
      assert.ok(
        row,
        `${section}.${key} is missing from the settings table of docs/configuration.md`,
      );
      const shown = Array.isArray(value) ? JSON.stringify(value) : String(value);
      assert.ok(
        row.includes(shown),
        `${section}.${key}: docs/configuration.md does not show the default ${shown}`,
      );
    }
  }
});
