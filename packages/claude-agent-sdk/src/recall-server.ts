import type { McpSdkServerConfigWithInstance } from "@anthropic-ai/claude-agent-sdk";
import { ValidationError } from "@palimpsest/core";
import { mcpToolResult, type RecallToolOptions, recallTools, type Session } from "@palimpsest/runtime";

/** The name the recall server is registered under by default: the model sees `mcp__palimpsest__recall`. */
export const RECALL_SERVER_NAME = "palimpsest";

/** Options of PalimpsestSessionStore.recallServer. */
export interface RecallServerOptions extends RecallToolOptions {
  /** The server's name (default `palimpsest`): the key it goes under in `mcpServers`, and its tools' prefix. */
  name?: string;
}

/**
 * The SDK's in-process MCP server (`createSdkMcpServer`) serving `recall` and `expand` (recallTools) over
 * the session `session()` gives at each call; its tools are always loaded (never deferred behind tool
 * search), so the model sees them from the first turn.
 */
export async function sdkRecallServer(
  session: () => Promise<Session>,
  options: RecallServerOptions,
): Promise<McpSdkServerConfigWithInstance> {
  const { name = RECALL_SERVER_NAME, ...toolOptions } = options;
  if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    throw new ValidationError(
      "recallServer's name must be 1 to 64 letters, digits, _ or - (it prefixes the tools' names)",
      [`name: ${JSON.stringify(name)}`],
      { path: "name" },
    );
  }
  const sdk = await import("@anthropic-ai/claude-agent-sdk");
  const tools = recallTools(session, toolOptions).map((recall) =>
    sdk.tool(recall.name, recall.description, recall.input, (input: unknown) => mcpToolResult(recall, input)),
  );
  return sdk.createSdkMcpServer({ name, version: "0.1.0", alwaysLoad: true, tools });
}
