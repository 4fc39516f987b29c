import { customProfile } from "@palimpsest/core";
import { LOCAL_PROFILE } from "@palimpsest/core/testing";
import { compact, compactRange, type Palimpsest, type Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** Appends exchanges n in [from, to): a request, a shell call, its output of about `tokens` tokens, a reply. */
async function grow(session: Session, from: number, to: number, tokens: number): Promise<void> {
  for (let n = from; n < to; n++) {
    const output = Array.from({ length: tokens }, (_, i) => `line${(i * 7 + n) % 97}`).join(" ");
    await session.append(
      [
        { id: `u${n}`, role: "user", content: `step ${n}: run the build` },
        { id: `a${n}`, role: "assistant", content: "", toolCalls: [{ id: `c${n}`, name: "shell", arguments: "{}" }] },
        { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: output },
        { id: `r${n}`, role: "assistant", content: `step ${n} done` },
      ],
      { turnId: `turn${n}` },
    );
  }
}

const RECOVERY = /^- Superseded (\d+) messages?(?: and (\d+) earlier summar(?:y|ies))?(?: in (\d+) compactions)?: /m;

/** The numbers of the recovery line of the live summary `id`: messages, earlier summaries, compactions. */
function recoveryCounts(session: Session, id: string): [number, number, number] {
  const summary = session.view().messages.find((m) => m.id === id);
  const text = summary?.content.map((p) => (p.type === "text" ? p.text : "")).join("") ?? "";
  const match = RECOVERY.exec(text);
  if (match === null) throw new Error(`no recovery line in ${text}`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 1)];
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(
    `compactions that grow, and true recovery counts (${backend.name})`,
    () => {
      let runtime: Palimpsest;
      beforeAll(async () => {
        await backend.setup();
        runtime = await backend.open();
      });
      afterAll(() => backend.dispose());

      it("the recovery line's numbers are the targets of the compactions folded into it", async () => {
        const session = await runtime.startSession({ contextWindow: 64_000, profile: "local" });
        let targets = 0;
        for (let round = 1; round <= 4; round++) {
          await grow(session, (round - 1) * 25, round * 25, 400);
          const outcome = await compact(session, { policy: "summary", force: true });
          if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded") {
            throw new Error(`round ${round}: ${outcome.status}`);
          }
          const { data } = outcome.event;
          targets += data.targets.length;
          const [messages, summaries, compactions] = recoveryCounts(session, data.replacements[0]?.message.id ?? "");
          expect(messages + summaries).toBe(targets); // every superseded message and summary, counted once
          expect(summaries).toBe(round - 1); // each later summary superseded the one before
          expect(compactions).toBe(round);
        }
      });

      it("a summary that updates a hand-written one counts it beside the messages", async () => {
        const session = await runtime.startSession({ contextWindow: 64_000, profile: "local" });
        await grow(session, 0, 30, 400);
        await compactRange(session, {
          fromId: "u2",
          toId: "r5",
          summary: "The user asked for builds 2 to 5; all passed.",
        });
        const outcome = await compact(session, { policy: "summary", force: true });
        if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded")
          throw new Error("no compaction");
        const { data } = outcome.event;
        expect(recoveryCounts(session, data.replacements[0]?.message.id ?? "")).toEqual([
          data.targets.length - 1,
          1,
          1,
        ]);
      });

      it("an automatic compaction that would grow the view is skipped and nothing is written", async () => {
        const session = await runtime.startSession({ contextWindow: 64_000, profile: "local" });
        await grow(session, 0, 8, 5);
        const version = session.state.viewVersion;
        // Tiny exchanges: the summary (its note, its sections, every request verbatim) outweighs them.
        const profile = customProfile({ tail: { minTokens: 20, maxTokens: 20 } }, LOCAL_PROFILE); // a tail of one exchange
        const auto = await compact(session, { policy: "summary", profile, force: true, trigger: "auto" });
        expect(auto).toMatchObject({ status: "skipped" });
        if (auto.status !== "skipped" || auto.grows === undefined) throw new Error("not skipped for growth");
        expect(auto.grows.tokensAfter).toBeGreaterThanOrEqual(auto.grows.tokensBefore);
        expect(auto.reason).toContain("not written");
        await expect(compact(session, { policy: "summary", profile, force: true })).rejects.toMatchObject({
          code: "INVARIANT_VIOLATED",
          details: { rule: "compaction-grows-view", tokensBefore: auto.grows.tokensBefore },
        });
        expect(session.state.viewVersion).toBe(version);
        const written = await compact(session, { policy: "summary", profile, force: true, allowGrowth: true });
        expect(written.status).toBe("compacted");
      });
    },
  );
}
