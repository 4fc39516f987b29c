/**
 * `palimpsest mcp` driven by the official MCP SDK's client over stdio, as an agent's MCP config runs it:
 * the server lists `recall` and `expand`, recall finds a compacted message and names its compaction,
 * expand gives back the compaction's originals and a message by seq, answers stay within --max-tokens,
 * and refused calls answer as tool errors while the server goes on. SQLite and PostgreSQL.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { compactRange, openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { BIN, type CliDatabase, postgresCliDatabase, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

/** The text of a tool call's answer. */
function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((c) => c.text ?? "").join("");
}

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest mcp over stdio (${name})`, () => {
    let db: CliDatabase;
    let client: Client;
    let compactionId: string;
    const bigOutput = `ERROR flaky_socket_reset in worker 7\n${"trace line of the crash\n".repeat(2_000)}`;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const runtime = await openPalimpsest({ url: db.url });
      const session = await runtime.startSession({
        model: "gpt-4.1",
        source: { format: "test", externalId: "agent-1" },
      });
      await session.append([
        { id: "u1", role: "user", content: "the deploy to eu-west-3 keeps failing" },
        {
          id: "a1",
          role: "assistant",
          content: "checking",
          toolCalls: [{ id: "c1", name: "shell", arguments: '{"command":"kubectl rollout status deploy/api"}' }],
        },
        { id: "t1", role: "tool", toolCallId: "c1", content: bigOutput },
        { id: "r1", role: "assistant", content: "the socket resets" },
        { id: "u2", role: "user", content: "ok, now write the changelog" },
        { id: "r2", role: "assistant", content: "Changelog written." },
      ]);
      const [compaction] = await compactRange(session, { fromId: "u1", toId: "r1", summary: "deploy failed; looked" });
      compactionId = compaction?.type === "messages.superseded" ? compaction.data.compactionId : "";
      await runtime.close();
      client = new Client({ name: "palimpsest-test", version: "1.0.0" });
      const env = Object.fromEntries(
        Object.entries(process.env).filter(
          (e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("PALIMPSEST_"),
        ),
      );
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, "--db", db.url, "mcp", "--session", "agent-1", "--max-tokens", "400"],
          env,
          stderr: "pipe",
        }),
      );
    });
    afterAll(async () => {
      await client?.close();
      await db?.dispose();
    });

    it("lists recall and expand, each with its input schema", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["expand", "recall"]);
      const recall = tools.find((t) => t.name === "recall");
      expect(recall?.inputSchema.required).toEqual(["query"]);
      expect(Object.keys(recall?.inputSchema.properties ?? {}).sort()).toEqual(["limit", "offset", "query"]);
      for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    });

    it("recall finds a compacted message, names its compaction, and keeps to the token budget", async () => {
      const answer = textOf(await client.callTool({ name: "recall", arguments: { query: "flaky_socket_reset" } }));
      expect(answer).toContain(`compacted by ${compactionId}`);
      expect(answer).toContain("ERROR flaky_socket_reset in worker 7");
      expect(answer).toContain("[cut: about");
      expect(answer).toContain("expand with seq 4");
      const counter = await createTokenCounter("o200k_base");
      expect(counter.countText(answer)).toBeLessThanOrEqual(400);
      const deploy = textOf(await client.callTool({ name: "recall", arguments: { query: "eu-west-3 deploy" } }));
      expect(deploy).toContain("[seq 2, user, compacted by");
    });

    it("expand gives back a compaction's originals and one message by seq, paged within the budget", async () => {
      const originals = textOf(await client.callTool({ name: "expand", arguments: { compactionId } }));
      expect(originals).toContain(`Compaction ${compactionId} replaced these messages:`);
      expect(originals).toContain("the deploy to eu-west-3 keeps failing");
      expect(originals).toContain("kubectl rollout status");
      expect(originals).toMatch(/More: call expand again with offset \d+\./);
      const one = textOf(await client.callTool({ name: "expand", arguments: { seq: 2 } }));
      expect(one).toBe("[seq 2, user]\nthe deploy to eu-west-3 keeps failing");
    });

    it("answers refused calls as tool errors and goes on serving", async () => {
      const empty = await client.callTool({ name: "recall", arguments: { query: "..." } });
      expect(empty.isError).toBe(true);
      expect(textOf(empty)).toMatch(/^VALIDATION: /);
      const unknown = await client.callTool({ name: "expand", arguments: { compactionId: "no-such-compaction" } });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^NOT_FOUND: /);
      const both = await client.callTool({ name: "expand", arguments: { compactionId, seq: 2 } });
      expect(textOf(both)).toMatch(/^VALIDATION: expand takes a compactionId or a seq/);
      const misspelt = await client.callTool({ name: "recall", arguments: { query: "deploy", limt: 1 } });
      expect(misspelt.isError).toBe(true);
      expect(textOf(misspelt)).toMatch(/Invalid arguments for tool recall: Unrecognized key: "limt"/);
      const expandKey = await client.callTool({ name: "expand", arguments: { seq: 2, compaction: "x" } });
      expect(textOf(expandKey)).toMatch(/Invalid arguments for tool expand: Unrecognized key: "compaction"/);
      const badType = await client.callTool({ name: "recall", arguments: { query: "x", limit: 500 } });
      expect(badType.isError).toBe(true);
      expect(textOf(await client.callTool({ name: "expand", arguments: { seq: 6 } }))).toContain("changelog");
    });
  });
}
