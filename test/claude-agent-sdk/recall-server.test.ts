/**
 * The recall tools in a real Claude Agent SDK run: the SDK starts the real Claude Code binary (its
 * per-platform package), which talks to a local server speaking the Messages API (no network) and
 * mirrors its transcript into openSessionStore. Claude Code states a fact, compacts it away (`/compact`,
 * its own summary, which the Palimpsest fold turns into a compaction), and on the next turn the scripted
 * model calls `mcp__palimpsest__recall` and `mcp__palimpsest__expand` on the store's recallServer: what
 * Claude Code feeds back to the model holds the compacted message word for word, and a refused call
 * reaches the model as a tool error. On each engine.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { type MessagesRequest, type ReplyBlock, startFakeMessagesApi } from "../support/fake-messages-api.ts";
import { testEngines } from "../support/test-engines.ts";

// The SDK reads CLAUDE_CONFIG_DIR for its transcripts: set before it is loaded.
const configDir = mkdtempSync(join(tmpdir(), "palimpsest-sdk-recall-"));
process.env.CLAUDE_CONFIG_DIR = configDir;
const sdk = await import("@anthropic-ai/claude-agent-sdk");
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** The Claude Code binary the SDK starts (its optional per-platform package), when it is installed. */
function claudeBinary(): string | undefined {
  const fromSdk = createRequire(fileURLToPath(import.meta.resolve("@anthropic-ai/claude-agent-sdk")));
  try {
    const path = fromSdk.resolve(`@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/claude`);
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}
const binary = claudeBinary();
if (binary === undefined) console.warn("\n⚠ recall-server: no Claude Code binary for this platform, SKIPPED\n");

const FACT = "ERR_QUOKKA_7731";
const TOOLS = ["mcp__palimpsest__recall", "mcp__palimpsest__expand"];

/** The text of the tool result for `toolUseId` in the request's last message, and whether it is an error. */
function toolResult(request: MessagesRequest | undefined, toolUseId: string) {
  const last = request?.messages.at(-1)?.content;
  const block = (Array.isArray(last) ? last : []).find(
    (b: { type?: string; tool_use_id?: string }) => b.type === "tool_result" && b.tool_use_id === toolUseId,
  ) as { content?: string | { type: string; text?: string }[]; is_error?: boolean } | undefined;
  if (block === undefined) return undefined;
  const content = block.content ?? "";
  const text = typeof content === "string" ? content : content.map((c) => c.text ?? "").join("");
  return { text, isError: block.is_error === true };
}

/**
 * The model's script: "noted" to the fact; a summary without the fact when asked to compact; on the
 * question, a recall without words (refused), then a recall, then an expand of the compaction the recall
 * named, then its answer.
 */
function script(request: MessagesRequest): ReplyBlock[] {
  const last = JSON.stringify(request.messages.at(-1) ?? {});
  if (last.includes("<summary>") || last.includes("Respond with plain text only")) {
    return [{ type: "text", text: "<summary>The user reported that a deploy failed.</summary>" }];
  }
  if (!JSON.stringify(request.messages).includes("What was the exact error code?"))
    return [{ type: "text", text: "Noted." }];
  const recalled = toolResult(request, "toolu_recall");
  if (toolResult(request, "toolu_expand") !== undefined) return [{ type: "text", text: "It was the code you gave." }];
  if (recalled !== undefined) {
    const compactionId = /compacted by ([^\]\s]+)\]/.exec(recalled.text)?.[1] ?? "none";
    return [{ type: "tool_use", id: "toolu_expand", name: "mcp__palimpsest__expand", input: { compactionId } }];
  }
  if (toolResult(request, "toolu_refused") !== undefined) {
    return [
      {
        type: "tool_use",
        id: "toolu_recall",
        name: "mcp__palimpsest__recall",
        input: { query: "deploy failed error" },
      },
    ];
  }
  return [{ type: "tool_use", id: "toolu_refused", name: "mcp__palimpsest__recall", input: { query: "?!" } }];
}

for (const engine of testEngines()) {
  describe.skipIf(engine.skip !== undefined || binary === undefined)(
    `recallServer in a real Claude Code run (${engine.name})`,
    () => {
      it("after Claude Code compacts a fact away, the model's recall and expand calls get it back word for word, fed back to it", {
        timeout: 120_000,
      }, async () => {
        const database = await engine.create("sdkrecall");
        const api = await startFakeMessagesApi(script);
        let store: PalimpsestSessionStore | undefined;
        try {
          store = await openSessionStore({ url: database.url, settleMs: 60_000 });
          const sessionId = randomUUID();
          const cwd = join(configDir, `work-${engine.name}`);
          mkdirSync(cwd, { recursive: true });
          const env: Record<string, string | undefined> = {
            ...process.env,
            ANTHROPIC_BASE_URL: api.url,
            ANTHROPIC_API_KEY: "test-key",
            ANTHROPIC_AUTH_TOKEN: undefined,
            CLAUDE_CONFIG_DIR: configDir,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            DISABLE_AUTOUPDATER: "1",
            DISABLE_TELEMETRY: "1",
          };
          const options = {
            sessionStore: store,
            mcpServers: { palimpsest: await store.recallServer(sessionId, { maxTokens: 600 }) },
            allowedTools: TOOLS,
            model: "claude-sonnet-4-5",
            cwd,
            settingSources: [],
            env,
          };
          const run = async (prompt: string, more: { sessionId: string } | { resume: string }) => {
            const results = [];
            for await (const message of sdk.query({ prompt, options: { ...options, ...more } })) {
              if (message.type === "result") results.push(message.subtype);
            }
            expect(results).toEqual(["success"]);
          };

          await run(`The deploy failed with ${FACT} in /srv/deploy/quokka.yaml. Note it.`, { sessionId });
          await run("/compact", { resume: sessionId });
          const asked = api.requests.length;
          await run("What was the exact error code?", { resume: sessionId });

          // The question reached the model without the fact: the compaction took it out of its context.
          const question = api.requests[asked];
          expect(JSON.stringify(question?.messages)).toContain("What was the exact error code?");
          expect(JSON.stringify(question?.messages)).not.toContain(FACT);
          // A recall without words was refused, and the model was told why.
          const refused = toolResult(api.requests[asked + 1], "toolu_refused");
          expect(refused?.isError).toBe(true);
          expect(refused?.text).toMatch(/^VALIDATION: /);
          // The recall's answer, fed back to the model: the user's message, word for word, compacted.
          const recalled = toolResult(api.requests[asked + 2], "toolu_recall");
          expect(recalled?.isError).toBe(false);
          expect(recalled?.text).toContain(`The deploy failed with ${FACT} in /srv/deploy/quokka.yaml. Note it.`);
          const [, seq, compactionId] = /\[seq (\d+), user, compacted by ([^\]\s]+)\]/.exec(recalled?.text ?? "") ?? [];
          expect(compactionId, recalled?.text).toBeDefined();
          // The expand's answer: the compaction's originals, the fact among them at the seq recall named.
          const expanded = toolResult(api.requests[asked + 3], "toolu_expand");
          expect(expanded?.isError).toBe(false);
          expect(expanded?.text).toContain(`Compaction ${compactionId} replaced these messages:`);
          expect(expanded?.text).toContain(`[seq ${seq}, user]\nThe deploy failed with ${FACT}`);
          expect(api.requests).toHaveLength(asked + 4);

          // The same compaction in the store: the Palimpsest session's own record of what it replaced.
          const [palimpsestId] = await store.sessionIds(sessionId);
          const session = await store.runtime.resume(palimpsestId as string);
          const originals = await session.expand(compactionId as string);
          expect(originals.map((o) => o.seq)).toContain(Number(seq));
        } finally {
          await store?.close();
          await api.close();
          await database.drop();
        }
      });
    },
  );
}

describe("recallServer's options", () => {
  it("refuses an unknown option, a name that cannot prefix a tool, a budget under 100 tokens and a session that is none, with VALIDATION", async () => {
    const store = await openSessionStore({ url: ":memory:" });
    try {
      const refusal = (options: object) =>
        store.recallServer("0e8f1c1e-0000-4000-8000-000000000001", options as never).then(
          () => undefined,
          (error: { code?: string; message?: string }) => [error.code, error.message],
        );
      expect(await refusal({ limit: 3 })).toEqual(["VALIDATION", "unknown recallServer option: limit"]);
      expect(await refusal({ name: "my server" })).toEqual([
        "VALIDATION",
        expect.stringContaining("recallServer's name must be 1 to 64 letters"),
      ]);
      expect(await refusal({ maxTokens: 50 })).toEqual(["VALIDATION", expect.stringContaining("maxTokens")]);
      // A session that is no SDK session id nor key is refused now, not at the model's first call.
      for (const [session, path] of [
        [42, "session"],
        ["", "sessionId"],
        [{ sessionId: "s" }, "session.projectKey"],
      ] as const) {
        await expect(store.recallServer(session as never)).rejects.toMatchObject({
          code: "VALIDATION",
          details: { path },
        });
      }
      const server = await store.recallServer("0e8f1c1e-0000-4000-8000-000000000001", { name: "history" });
      expect([server.type, server.name]).toEqual(["sdk", "history"]);
    } finally {
      await store.close();
    }
  });
});
