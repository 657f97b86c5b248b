import assert from "node:assert/strict";
import {
  AGENT_INSTRUCTIONS_PREAMBLE,
  agentInstructions,
  COMPRESSOR_AGENT,
  isAgentPrompt,
} from "./mod.ts";

Deno.test("agentInstructions: the preamble, the reply's terms, the agent's prompt, in one block", () => {
  const block = agentInstructions("Answer with XML only.", COMPRESSOR_AGENT.prompt);
  assert.ok(
    block.startsWith(`<instructions>\n${AGENT_INSTRUCTIONS_PREAMBLE} Answer with XML only.`),
  );
  assert.ok(block.endsWith(`${COMPRESSOR_AGENT.prompt}\n</instructions>`));
});

Deno.test("isAgentPrompt: our prompts open with the block; a user quoting it further in is not us", () => {
  const block = agentInstructions("Answer with XML only.", COMPRESSOR_AGENT.prompt);
  assert.equal(isAgentPrompt(block), true);
  assert.equal(isAgentPrompt(`<extraction_request>\n${block}\n</extraction_request>`), true);
  assert.equal(isAgentPrompt(`${"Why is this here? ".repeat(20)}\n${block}`), false);
  assert.equal(isAgentPrompt("Fix the date parser"), false);
});
