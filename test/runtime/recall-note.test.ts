/**
 * `compaction.recallTool`: every summary a compaction writes (batch summaries, micro-compaction's rolling
 * marker) ends with one line naming the agent's recall tool, once however often summaries update each
 * other; the tool it names finds what the summary replaced. Off by default; a name that is no tool name is
 * VALIDATION. On each backend.
 */
import { messageText } from "@palimpsest/core";
import { recallNote } from "@palimpsest/core/testing";
import { compact, microCompact, type Palimpsest, recallTools, type Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** Appends `count` completed turns from `from`, each a request with a word of its own and a long reply. */
async function grow(session: Session, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await session.append(
      [
        { id: `u${n}`, role: "user", content: `step ${n}: look at widget${n}` },
        { id: `a${n}`, role: "assistant", content: `widget${n} ${"is fine and well tested ".repeat(40)}` },
      ],
      { turnId: `turn${n}` },
    );
    await session.completeTurn(`turn${n}`);
  }
}

/** The texts of the view's summaries (batch or rolling). */
const summaries = (session: Session) =>
  session.state.live.filter((e) => e.placedBy !== undefined).map((e) => messageText(e.message));

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`a summary names the recall tool (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("each batch summary ends with the line once, through updates, and the tool it names finds the originals", async () => {
      const session = await runtime.startSession({ contextWindow: 8_192, profile: "local" });
      const settings = { policy: "summary" as const, recallTool: "recall", force: true };
      await grow(session, 0, 20);
      expect(await compact(session, settings)).toMatchObject({ status: "compacted" });
      await grow(session, 20, 20);
      expect(await compact(session, settings)).toMatchObject({ status: "compacted" });
      const texts = summaries(session);
      expect(texts).toHaveLength(1);
      expect(texts[0]?.split(recallNote("recall"))).toHaveLength(2);
      const [recall] = recallTools(() => runtime.resume(session.id));
      expect(await recall.call({ query: "widget3" })).toContain("step 3: look at widget3");
    });

    it("the rolling marker of micro-compaction ends with it too; without the setting no summary has it", async () => {
      const micro = await runtime.startSession({ contextWindow: 8_192, profile: "local" });
      await grow(micro, 0, 8);
      const outcome = await microCompact(micro, { tailTokens: 200, recallTool: "mcp__palimpsest__recall" });
      expect(outcome.outcome).toBe("absorbed");
      expect(summaries(micro)[0]).toContain(recallNote("mcp__palimpsest__recall"));
      const plain = await runtime.startSession({ contextWindow: 8_192, profile: "local" });
      await grow(plain, 0, 20);
      expect(await compact(plain, { policy: "summary", force: true })).toMatchObject({ status: "compacted" });
      expect(summaries(plain)[0]).not.toContain("[ORIGINALS KEPT]");
    });

    it("refuses a recallTool that is no tool name with VALIDATION, writing nothing", async () => {
      const session = await runtime.startSession({ contextWindow: 8_192, profile: "local" });
      await grow(session, 0, 20);
      const events = (await runtime.store.readStream(session.id)).length;
      for (const recallTool of ["", "recall me", "x".repeat(129)]) {
        const error = await rejection(compact(session, { policy: "summary", recallTool, force: true }));
        expect([error.code, error.details]).toEqual(["VALIDATION", expect.objectContaining({ path: "recallTool" })]);
        const micro = await rejection(microCompact(session, { recallTool }));
        expect(micro.code).toBe("VALIDATION");
      }
      expect(await runtime.store.readStream(session.id)).toHaveLength(events);
    });
  });
}
