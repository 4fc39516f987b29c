import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { importSessions, type Palimpsest } from "@palimpsest/runtime";
import { importedSessionId } from "@palimpsest/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

const SPOTTER = join(TRANSCRIPTS_DIR, "claude-code/spotter");
const MAIN = "4d5611e5-241a-462a-8d15-5122611a9569";
const AGENT = "a2898e3";

/** Parses one Claude Code file of the spotter fixtures as `palimpsest import` would. */
function claudeCode(file: string) {
  return parseTranscript(readFileSync(join(SPOTTER, file), "utf8"), { fileName: file, format: "claude-code" });
}

/** A source as an SDK adapter would record it: a session id of its own, unique to this run. */
function sdkSource(externalId = `sdk-${randomUUID()}`) {
  return { format: "claude-agent-sdk", externalId };
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`session names (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it.skipIf(!HAVE_TRANSCRIPTS)(
      "names an imported Claude Code session by its session id and its subagent by its agent id",
      async () => {
        const results = await importSessions(runtime, [
          ...claudeCode(`${MAIN}.jsonl`),
          ...claudeCode(`${MAIN}/subagents/agent-${AGENT}.jsonl`),
        ]);
        const mainId = importedSessionId("claude-code", MAIN);
        const agentId = importedSessionId("claude-code", AGENT);
        expect(results.map((r) => [r.sessionId, r.externalId])).toEqual([
          [mainId, MAIN],
          [agentId, AGENT],
        ]);
        expect(await runtime.resolveSession(MAIN)).toBe(mainId);
        expect(await runtime.resolveSession(AGENT)).toBe(agentId);
        expect(await runtime.resolveSession(mainId)).toBe(mainId);
        const catalogue = await runtime.sessions();
        expect(catalogue.find((s) => s.sessionId === mainId)?.name).toBe(MAIN);
        expect(catalogue.find((s) => s.sessionId === agentId)?.name).toBe(AGENT);
        expect((await runtime.store.getSession(agentId))?.name).toBe(AGENT);
        // Importing again writes nothing and names nothing twice.
        await importSessions(runtime, claudeCode(`${MAIN}.jsonl`));
        expect(await runtime.store.sessionsNamed(MAIN)).toEqual([mainId]);
      },
    );

    it("resolves an id to itself, a unique name to its session, and refuses a shared or unknown name", async () => {
      const own = await runtime.startSession({ source: sdkSource() });
      const named = await runtime.startSession({ source: sdkSource() });
      const shared = sdkSource();
      const twins = [
        await runtime.startSession({ source: shared }),
        await runtime.startSession({ source: { ...shared, format: "other-sdk" } }),
      ];
      expect(await runtime.resolveSession(own.id)).toBe(own.id);
      expect(await runtime.resolveSession(named.state.started?.source?.externalId ?? "")).toBe(named.id);
      const ambiguous = await rejection(runtime.resolveSession(shared.externalId));
      expect(ambiguous.code).toBe("VALIDATION");
      expect(ambiguous.details).toMatchObject({
        issues: twins
          .map((s) => s.id)
          .sort()
          .map((id) => ({ path: "", code: "custom", message: id })),
      });
      expect(ambiguous.message).toContain(shared.externalId);
      const unknown = await rejection(runtime.resolveSession(`no-such-${randomUUID()}`));
      expect(unknown).toMatchObject({ code: "NOT_FOUND", details: { kind: "session" } });
      for (const bad of ["", 42, "a\0b"]) {
        expect((await rejection(runtime.resolveSession(bad as string))).code).toBe("VALIDATION");
        expect((await rejection(runtime.store.sessionsNamed(bad as string))).code).toBe("VALIDATION");
      }
    });

    it("an id wins over a name equal to it", async () => {
      const first = await runtime.startSession({ source: sdkSource() });
      const second = await runtime.startSession({ source: sdkSource(first.id) });
      expect(await runtime.resolveSession(first.id)).toBe(first.id);
      expect(await runtime.store.sessionsNamed(first.id)).toEqual([second.id]);
    });

    it("gives no name to a start without a well-formed external id, and stores the session anyway", async () => {
      const starts = [
        {},
        { source: { format: "claude-agent-sdk" } },
        { source: sdkSource("") },
        { source: sdkSource("nul\0inside") },
        { source: sdkSource("lone \ud800 surrogate") },
      ];
      for (const options of starts) {
        const session = await runtime.startSession(options);
        const summary = await runtime.store.getSession(session.id);
        expect(summary?.version).toBe(1);
        expect(summary).not.toHaveProperty("name");
      }
      const odd = sdkSource(`odd \u0001 'quoted' "name" ${randomUUID()}`);
      const session = await runtime.startSession({ source: odd, title: "nul \0 in the title" });
      expect(await runtime.resolveSession(odd.externalId)).toBe(session.id);
    });

    it("keeps the name of the first start: a hand-off successor takes none, and erasure keeps it", async () => {
      const source = sdkSource();
      const original = await runtime.startSession({ source, title: "to be erased" });
      await original.append({ role: "user", content: "hello" });
      const successor = await runtime.handOff(original);
      expect(successor.state.started?.source?.externalId).toBe(source.externalId);
      expect(await runtime.store.getSession(successor.id)).not.toHaveProperty("name");
      expect(await runtime.resolveSession(source.externalId)).toBe(original.id);
      await runtime.erase(original.id, { reason: "names are ids" });
      const erased = await runtime.store.getSession(original.id);
      expect(erased).toMatchObject({ name: source.externalId, erasedAt: expect.any(String) });
      expect(await runtime.resolveSession(source.externalId)).toBe(original.id);
    });
  });
}
