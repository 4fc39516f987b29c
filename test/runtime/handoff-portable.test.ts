import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`portable hand-off (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("carries the view without reasoning and metadata, and the seal says what it dropped", async () => {
      const source = await runtime.startSession({ model: "claude-sonnet-4-5" });
      const signed = [{ type: "thinking", thinking: "hmm", signature: "sig-123" }];
      await source.append([
        { id: "u1", role: "user", content: "hi", metadata: { uuid: "entry-1" } },
        { id: "think", role: "assistant", content: [], reasoning: signed },
        {
          id: "a1",
          role: "assistant",
          content: "looking",
          reasoning: signed,
          toolCalls: [{ id: "toolu_1", name: "Read", arguments: "{}" }],
          metadata: { uuid: "entry-2" },
        },
        { id: "t1", role: "tool", toolCallId: "toolu_1", content: "file" },
        { id: "r1", role: "assistant", content: "done" },
      ]);
      const successor = await runtime.handOff(source, { portable: true, reason: "to openai" });
      expect(successor.view().messages).toEqual([
        { id: "u1", role: "user", content: [{ type: "text", text: "hi" }] },
        {
          id: "a1",
          role: "assistant",
          content: [{ type: "text", text: "looking" }],
          toolCalls: [{ id: "toolu_1", name: "Read", arguments: "{}" }],
        },
        { id: "t1", role: "tool", toolCallId: "toolu_1", content: [{ type: "text", text: "file" }] },
        { id: "r1", role: "assistant", content: [{ type: "text", text: "done" }] },
      ]);
      const log = await runtime.store.readStream(source.id);
      expect(log.at(-1)).toMatchObject({
        type: "session.handed-off",
        data: { toSessionId: successor.id, reason: "to openai", dropped: { reasoning: 2, metadata: 2 } },
      });
    });

    it("keeps everything without it, and refuses a portable flag that is not a boolean", async () => {
      const source = await runtime.startSession({ model: "gpt-4o" });
      await source.append({ id: "u1", role: "user", content: "hi", metadata: { k: 1 } });
      const bad = await rejection(runtime.handOff(source, { portable: "yes" as never }));
      expect(bad).toMatchObject({ code: "VALIDATION", details: { path: "portable" } });
      const successor = await runtime.handOff(source);
      expect(successor.view().messages[0]?.metadata).toEqual({ k: 1 });
      const log = await runtime.store.readStream(source.id);
      expect(log.at(-1)?.type === "session.handed-off" && log.at(-1)?.data).not.toHaveProperty("dropped");
    });
  });
}
