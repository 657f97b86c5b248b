import assert from "node:assert/strict";
import { copilotTurnPayloads } from "./_copilot_transcript.ts";
import { fixtureText } from "./testing.ts";

const context = { sessionId: "3474568a-3e76-4627-8796-504897f5662c", cwd: "/srv/app" };

Deno.test("a real transcript's turn: each finished call once, failures flagged by success or exit code", () => {
  const lines = fixtureText("copilot_cli/turn_tools.jsonl", "/srv/app").split("\n");
  const payloads = copilotTurnPayloads(lines, context);
  assert.deepEqual(
    payloads.map(({ payload, key }) => [key, payload.tool_name, payload.error]),
    [
      [
        "tool:toolu_mx1esh7g000000",
        "bash",
        "ls: cannot access './fixtures-kl': No such file or directory",
      ],
      ["tool:toolu_mx1eshba000002", "view", "Path does not exist"],
      ["tool:toolu_mx1eshcd000004", "bash", undefined],
    ],
  );
  assert.deepEqual(payloads[0].payload.tool_input, {
    command: "ls ./fixtures-kl",
    description: "list",
  });
  // The next prompt starts a new turn: the calls before it are not this turn's.
  const next = [...lines, JSON.stringify({ type: "user.message", data: { content: "again" } })];
  assert.deepEqual(copilotTurnPayloads(next, context), []);
  // A call without its complete line is left out (Copilot CLI writes it before the model gets the
  // result, so at the turn's end every call has one).
  const started = lines.filter((l) =>
    !l.includes("toolu_mx1eshcd000004") || !l.includes("complete")
  );
  assert.equal(copilotTurnPayloads(started, context).length, 2);
  // A cut line is skipped.
  assert.equal(copilotTurnPayloads([...lines, '{"type":"tool.execution_'], context).length, 3);
});
