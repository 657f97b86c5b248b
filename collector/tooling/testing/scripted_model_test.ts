import assert from "node:assert/strict";
import {
  answersToolCall,
  messageEvents,
  offersTools,
  requestText,
  startScriptedModel,
  toolsThenText,
  toolThenText,
} from "./scripted_model.ts";

const BASH = { name: "Bash", input: { command: "echo hi" } };

Deno.test("messageEvents: the Messages API's event order, tool input as JSON pieces", () => {
  const events = messageEvents(
    [{ type: "text", text: "Let me run it." }, { type: "tool_use", ...BASH }],
    { model: "m", inputTokens: 5 },
  );
  assert.deepEqual(events.map((e) => e.event), [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  const json = events.filter((e) =>
    (e.data.delta as { type?: string })?.type === "input_json_delta"
  )
    .map((e) => (e.data.delta as { partial_json: string }).partial_json).join("");
  assert.deepEqual(JSON.parse(json), BASH.input);
  assert.equal((events.at(-2)!.data.delta as { stop_reason: string }).stop_reason, "tool_use");
  const text = messageEvents([{ type: "text", text: "done" }], { model: "m", inputTokens: 1 });
  assert.equal((text.at(-2)!.data.delta as { stop_reason: string }).stop_reason, "end_turn");
});

Deno.test("toolThenText: the tool first, the text once its result is back; side requests get text", () => {
  const script = toolThenText(BASH, "All done.");
  const tools = [{ name: "Bash" }];
  const ask = { tools, messages: [{ role: "user", content: "run it" }] };
  assert.equal(offersTools(ask), true);
  assert.equal(answersToolCall(ask), false);
  assert.deepEqual(script(ask).map((b) => b.type), ["text", "tool_use"]);
  const back = {
    tools,
    messages: [
      ...ask.messages,
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "Bash", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "hi" }] },
    ],
  };
  assert.equal(answersToolCall(back), true);
  assert.deepEqual(script(back), [{ type: "text", text: "All done." }]);
  assert.deepEqual(script({ messages: ask.messages }), [{ type: "text", text: "All done." }]);
});

Deno.test("toolsThenText: one tool per round until the turn has every result, then the text", () => {
  const echo = (n: number) => ({ name: "Bash", input: { command: `echo ${n}` } });
  const script = toolsThenText([echo(1), echo(2)], "Both ran.");
  const tools = [{ name: "Bash" }];
  const round = (id: string) => [
    { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] },
  ];
  const prompt = { role: "user", content: "run both" };
  const used = (messages: unknown[]) =>
    script({ tools, messages }).find((b) => b.type === "tool_use");
  assert.deepEqual(used([prompt]), { type: "tool_use", ...echo(1) });
  assert.deepEqual(used([prompt, ...round("a")]), { type: "tool_use", ...echo(2) });
  assert.deepEqual(script({ tools, messages: [prompt, ...round("a"), ...round("b")] }), [
    { type: "text", text: "Both ran." },
  ]);
  // A second prompt in the session starts a new turn: its tools run again.
  const later = [prompt, ...round("a"), ...round("b"), { role: "user", content: "again" }];
  assert.deepEqual(used(later), { type: "tool_use", ...echo(1) });
  assert.deepEqual(script({ messages: [prompt] }), [{ type: "text", text: "Both ran." }]);
});

Deno.test("startScriptedModel: streams SSE, answers JSON, count_tokens and probes, records every request", async () => {
  await using model = startScriptedModel(toolThenText(BASH, "All done."));
  const post = (path: string, body: unknown) =>
    fetch(model.url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const body = {
    model: "claude-x",
    stream: true,
    system: "hook context here",
    tools: [{ name: "Bash" }],
    messages: [{ role: "user", content: "run it" }],
  };
  const streamed = await post("/v1/messages?beta=true", body);
  assert.equal(streamed.headers.get("content-type"), "text/event-stream");
  const sse = await streamed.text();
  assert.match(sse, /^event: message_start\ndata: \{/);
  assert.match(sse, /"name":"Bash"/);
  assert.match(sse, /event: message_stop\ndata: \{"type":"message_stop"\}\n\n$/);

  const plain = await post("/v1/messages", { ...body, stream: false, tools: [] });
  const message = await plain.json();
  assert.equal(message.type, "message");
  assert.deepEqual(message.content, [{ type: "text", text: "All done." }]);

  const counted = await (await post("/v1/messages/count_tokens", body)).json();
  assert.ok(counted.input_tokens > 0);
  const head = await fetch(model.url, { method: "HEAD" });
  assert.equal(head.status, 200);
  const unknown = await fetch(`${model.url}/v1/other`);
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).type, "error");

  model.setScript(() => [{ type: "text", text: "changed" }]);
  const changed = await (await post("/v1/messages", { ...body, stream: false })).json();
  assert.equal(changed.content[0].text, "changed");

  assert.deepEqual(model.requests.map((r) => `${r.method} ${r.path}`), [
    "POST /v1/messages?beta=true",
    "POST /v1/messages",
    "POST /v1/messages/count_tokens",
    "HEAD /",
    "GET /v1/other",
    "POST /v1/messages",
  ]);
  assert.match(requestText(model.requests[0].body), /hook context here/);
  assert.equal(requestText(null), "");
});
