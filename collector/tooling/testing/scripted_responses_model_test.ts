import assert from "node:assert/strict";
import {
  callsThenText,
  responsesRequestText,
  startScriptedResponsesModel,
} from "./scripted_responses_model.ts";

const TOOLS = [{ type: "function", name: "exec_command" }];

Deno.test("scripted Responses model: a call, then the text once the call's output is back", async () => {
  await using model = startScriptedResponsesModel(
    callsThenText([{ type: "call", name: "exec_command", arguments: { cmd: "false" } }], "Done."),
  );
  const post = async (input: unknown[]) => {
    const res = await fetch(`${model.url}/responses`, {
      method: "POST",
      body: JSON.stringify({ model: "m", tools: TOOLS, input, stream: true }),
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const events = (await res.text()).split("\n\n").filter((e) => e !== "")
      .map((e) => JSON.parse(e.split("\n")[1].slice("data: ".length)));
    return events;
  };
  const user = { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] };
  const first = await post([user]);
  assert.deepEqual(first.map((e) => e.type), [
    "response.created",
    "response.output_item.done",
    "response.completed",
  ]);
  assert.equal(first[1].item.type, "function_call");
  assert.equal(first[1].item.name, "exec_command");
  assert.deepEqual(JSON.parse(first[1].item.arguments), { cmd: "false" });
  const second = await post([user, first[1].item, {
    type: "function_call_output",
    call_id: first[1].item.call_id,
    output: "exit 1",
  }]);
  assert.deepEqual(second[1].item.content, [{ type: "output_text", text: "Done." }]);
  assert.equal(model.requests.length, 2);
  assert.match(responsesRequestText(model.requests[0].body), /"go"/);
  const missing = await fetch(`${model.url}/models`);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});
