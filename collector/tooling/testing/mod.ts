/**
 * Test helpers for anything that needs a real collector.
 *
 * @module
 */
export * from "./daemon.ts";
export * from "./scripted_agent.ts";
export { CLAUDE_CODE_ACP, npmToolBin } from "./prepare.ts";
export * from "./tiny_onnx.ts";
export * from "./agent_command.ts";
export { drainSpool } from "@kiro-learn/core/spool";
export { waitFor } from "@kiro-learn/core/testing";
export * from "./scripted_model.ts";
export * from "./scripted_extraction_model.ts";
export * from "./claude_client.ts";
export * from "./codex_client.ts";
export * from "./scripted_responses_model.ts";
export * from "./gemini_client.ts";
export * from "./copilot_client.ts";
export * from "./scripted_gemini_model.ts";
export * from "./cli_process.ts";
export * from "./mcp_client.ts";
export * from "./data_dir_scan.ts";
export * from "./routes.ts";
export * from "./raw_http.ts";
export * from "./durability.ts";
export * from "./sandbox_probe.ts";
export * from "./fuzz.ts";
export * from "./browser.ts";
export * from "./postgres.ts";
export * from "./project_layouts.ts";
export * from "./launchers.ts";
export * from "./process_memory.ts";
export * from "./team_docs.ts";
export * from "./linked_shell.ts";
export * from "./stopped_process.ts";
export * from "./flood.ts";
export * from "./docs_links.ts";
export * from "./tmp_guard.ts";
// The shims' own test helpers, for the collector's tests that run a real hook (they may import
// shims only through here).
export { fixtureText, makeProject, runShimProcess, spoolFiles } from "@kiro-learn/shims/testing";
