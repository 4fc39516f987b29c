import { DEFAULT_TOOL_TOKENS, mcpToolResult, recallTools } from "@palimpsest/runtime";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { integerOption } from "../flags.ts";
import type { GlobalOptions } from "../output.ts";
import { resumeByPrefix, withRuntime } from "../runtime.ts";

/**
 * `mcp --session <session>`: an MCP server on stdin and stdout (the official MCP SDK's stdio transport)
 * serving the `recall` and `expand` tools over one session (recallTools), until its client closes the
 * stream. Nothing else is written to stdout; a tool call that is refused (a bad input, an unknown
 * compaction, an argument the tool does not take) answers as a tool error naming the code, and the server goes on.
 */
export function registerMcp(program: Command, io: CliIo): void {
  program
    .command("mcp")
    .description("serve the recall and expand tools of a session over MCP on stdio (for an agent's MCP config)")
    .requiredOption("--session <session>", "the session the tools search (by id, unique prefix or name)")
    .addOption(
      integerOption("--max-tokens <n>", `tokens one tool answer may take (default ${DEFAULT_TOOL_TOKENS})`, 100),
    )
    .action(async (flags: { session: string; maxTokens?: number }) => {
      const global = program.opts<GlobalOptions>();
      const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
      const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
      await withRuntime(global, io, async (runtime) => {
        const sessionId = (await resumeByPrefix(runtime, flags.session)).id;
        const server = new McpServer({ name: "palimpsest", version: "0.1.0" });
        const tools = recallTools(() => runtime.resume(sessionId), {
          ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
        });
        for (const tool of tools) {
          // The SDK checks the input with the tool's strict schema before the call (an unknown key is refused
          // there, by name) and lists it to the client as is: additionalProperties false.
          server.registerTool(
            tool.name,
            { description: tool.description, inputSchema: tool.schema },
            (input: unknown) => mcpToolResult(tool, input),
          );
        }
        // The process's own streams: the protocol owns stdout (nothing else is written there).
        const transport = new StdioServerTransport();
        const closed = new Promise<void>((resolve) => {
          transport.onclose = resolve;
          process.stdin.once("end", resolve);
        });
        await server.connect(transport);
        await closed;
        await server.close();
      });
    });
}
