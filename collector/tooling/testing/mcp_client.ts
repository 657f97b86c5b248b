/**
 * The real MCP server as a child process (launched with the exact argv the installer registers),
 * driven by the MCP SDK's own Client over stdio: what an agent's MCP host does.
 *
 * @module
 */
// @ts-types: the SDK's wildcard export hides its declarations from Deno (see mcp/tools.ts).
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DENO_ENV, mcpCommand } from "@kiro-learn/core/launch";

/** A tool call's answer: its text content joined, and whether it is an error. */
export interface McpToolResult {
  /** The text content, joined by newlines. */
  text: string;
  /** The result's `isError`. */
  isError: boolean;
}

/** A connected MCP session; disposing it closes the client and the server process. */
export interface McpSession extends AsyncDisposable {
  /** The SDK client. */
  client: Client;
  /** Calls a tool. */
  call(name: string, args: Record<string, unknown>): Promise<McpToolResult>;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
}

/** Variables an MCP server child needs besides the daemon's; nothing that could pick another project. */
export function mcpBaseEnv(): Record<string, string> {
  // What the MCP server's launcher exports before it runs the server.
  const env: Record<string, string> = { ...DENO_ENV };
  for (const key of ["HOME", "USER", "USERNAME", "LOGNAME", "USERPROFILE", "PATH", "DENO_DIR"]) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** Starts the MCP server for the collector at `host:port` in `cwd` and connects to it. */
export async function connectMcp(
  options: { host?: string; port: number; env: Record<string, string>; cwd: string },
): Promise<McpSession> {
  const [command, ...args] = mcpCommand({ host: options.host ?? "127.0.0.1", port: options.port });
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...mcpBaseEnv(), ...options.env },
    cwd: options.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "kiro-learn-mcp-test", version: "0.0.0" });
  await client.connect(transport);
  return {
    client,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { type: string; text: string }[];
      return { text: content.map((c) => c.text).join("\n"), isError: result.isError === true };
    },
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}
