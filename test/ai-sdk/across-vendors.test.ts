import { openConversation } from "@palimpsest/ai-sdk";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { importSessions, Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";
import { type ConversationBackend, postgresConversations, sqliteConversations } from "./conversation-backends.ts";
import { expectAccepted } from "./request-checks.ts";

const claudeCode = realTranscriptFiles().filter((file) => file.startsWith("claude-code/"));

/**
 * Claude Code sessions, imported, handed off portably and continued as AI SDK conversations: every
 * carried view loads as ModelMessages that generateText accepts, with Anthropic's thinking left behind.
 * Every file on SQLite; on PostgreSQL one with thinking blocks.
 */
function describeAcrossVendors(backend: ConversationBackend, files: readonly string[]): void {
  describe.skipIf(!HAVE_TRANSCRIPTS || backend.skip !== undefined)(`Claude Code → AI SDK on ${backend.name}`, () => {
    let runtime: Palimpsest;
    let drop: () => Promise<void>;
    let withThinking = 0;
    beforeAll(async () => {
      const database = await backend.create();
      drop = database.drop;
      runtime = new Palimpsest({ store: await openEventStore(database.url), counterFor: createTokenCounter });
    });
    afterAll(async () => {
      await runtime?.close();
      await drop?.();
    });

    it("has Claude Code transcripts to carry over", () => {
      expect(files.length).toBeGreaterThan(0);
    });

    for (const file of files) {
      it(`${file}: every session, handed off, is a request generateText accepts`, async () => {
        const imported = await importSessions(runtime, realSessions(file), { file });
        expect(imported.length).toBeGreaterThan(0);
        for (const { sessionId } of imported) {
          const source = await runtime.resume(sessionId);
          const thinking = source.view().messages.filter((m) => m.reasoning !== undefined).length;
          const successor = await runtime.handOff(source, { portable: true });
          const conversation = await openConversation({ runtime, sessionId: successor.id });
          const loaded = await conversation.load();
          expect(loaded.messages.length).toBeGreaterThan(0);
          const parts = loaded.messages.flatMap((m): { type: string }[] => (Array.isArray(m.content) ? m.content : []));
          expect(parts.filter((p) => p.type === "reasoning")).toEqual([]);
          withThinking += thinking;
          expect(successor.view().messages.some((m) => m.reasoning !== undefined)).toBe(false);
          await expectAccepted(loaded);
          await conversation.close();
        }
      });
    }

    it("carried sessions that had Anthropic thinking in their view (so dropping it was tested)", () => {
      expect(withThinking).toBeGreaterThan(0);
    });
  });
}

describeAcrossVendors(sqliteConversations, claudeCode);
describeAcrossVendors(
  postgresConversations(),
  claudeCode.filter((file) => file.endsWith("ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")),
);
