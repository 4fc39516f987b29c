import {
  foldSessionSummary,
  type SessionKey,
  type SessionStoreEntry,
  type SessionSummaryEntry,
} from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { TranscriptWriter, text } from "./claude-code-lines.ts";
import { type ContractContext, entries, newKey, untracked } from "./contract-context.ts";

/** The summaries the SDK's own fold gives for `appends` (each the entries one append stored), mtime left out. */
function foldedBySdk(key: SessionKey, appends: readonly SessionStoreEntry[][]): Omit<SessionSummaryEntry, "mtime"> {
  let summary: SessionSummaryEntry | undefined;
  for (const batch of appends) summary = foldSessionSummary(summary, key, batch, { mtime: 1 });
  if (summary === undefined) throw new Error("nothing folded");
  const { mtime: _mtime, ...rest } = summary;
  return rest;
}

/** Subpaths and projects kept apart; listSessions, listSessionSummaries and listSubkeys. */
export function keysListingContract({ fresh }: ContractContext): void {
  describe("keys and listings", () => {
    it("keeps two tenants' stores apart: one key in each is two transcripts, and neither lists the other's", async () => {
      const database = await fresh();
      const [acme, globex] = [await database.open({ tenant: "acme" }), await database.open({ tenant: "globex" })];
      const key = newKey();
      const acmeLines = entries(3, "acme");
      await acme.append(key, acmeLines);
      expect(await globex.load(key)).toBeNull();
      expect(await globex.listSessions(key.projectKey)).toEqual([]);
      await globex.delete(key);
      expect(await acme.load(key)).toEqual(acmeLines);
      const globexLines = entries(2, "globex");
      await globex.append(key, globexLines);
      expect(await globex.load(key)).toEqual(globexLines);
      expect(await acme.load(key)).toEqual(acmeLines);
      expect((await acme.listSessions(key.projectKey)).map((s) => s.sessionId)).toEqual([key.sessionId]);
    });

    it("stores a subpath key apart from its main key (the same uuid once in each)", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      const sub = { ...key, subpath: "subagents/agent-a1" };
      const main = entries(3, "main");
      const side = [...entries(2, "side"), ...main.slice(0, 1)];
      await store.append(key, main);
      await store.append(sub, side);
      expect(await store.load(key)).toEqual(main);
      expect(await store.load(sub)).toEqual(side);
    });

    it("isolates project keys: one sessionId in two projects is two sessions", async () => {
      const store = await (await fresh()).open();
      const one = newKey();
      const two = { ...one, projectKey: `${one.projectKey}-other` };
      const first = entries(2, "one");
      const second = [...entries(3, "two"), ...first];
      await store.append(one, first);
      await store.append(two, second);
      expect(await store.load(one)).toEqual(first);
      expect(await store.load(two)).toEqual(second);
      expect((await store.listSessions(one.projectKey)).map((s) => s.sessionId)).toEqual([one.sessionId]);
      await store.delete(two);
      expect(await store.load(one)).toEqual(first);
      expect(await store.load(two)).toBeNull();
      expect((await store.listSessions(one.projectKey)).map((s) => s.sessionId)).toEqual([one.sessionId]);
      expect(await store.listSessions(two.projectKey)).toEqual([]);
    });

    it("lists main sessions only, with integer epoch-ms mtimes that grow with each append", async () => {
      const store = await (await fresh()).open();
      const a = newKey();
      const b = { ...a, sessionId: `${a.sessionId}-b` };
      const before = Date.now();
      await store.append(a, entries(1));
      await store.append(b, entries(1));
      await store.append({ ...a, subpath: "subagents/agent-x" }, entries(1));
      await store.append({ projectKey: a.projectKey, sessionId: "only-a-subagent", subpath: "subagents/agent-y" }, [
        ...entries(1),
      ]);
      const listed = await store.listSessions(a.projectKey);
      expect(listed.map((s) => s.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
      const mtimeOf = async () =>
        (await store.listSessions(a.projectKey)).find((s) => s.sessionId === a.sessionId)?.mtime;
      let last = (await mtimeOf()) ?? 0;
      expect(Number.isInteger(last)).toBe(true);
      expect(last).toBeGreaterThanOrEqual(before);
      expect(last).toBeLessThanOrEqual(Date.now());
      for (let i = 0; i < 5; i++) {
        await store.append(a, entries(1));
        const now = (await mtimeOf()) ?? 0;
        expect(Number.isInteger(now)).toBe(true);
        expect(now).toBeGreaterThan(last);
        last = now;
      }
      await store.append({ ...a, subpath: "subagents/agent-x" }, entries(1));
      expect(await mtimeOf()).toBe(last);
    });

    it("lists [] for an unknown project", async () => {
      const store = await (await fresh()).open();
      await store.append(newKey(), entries(1));
      expect(await store.listSessions("/no/such/project")).toEqual([]);
      expect(await store.listSessionSummaries("/no/such/project")).toEqual([]);
    });

    it("keeps the summaries the SDK's foldSessionSummary gives for the same appends, main keys only", async () => {
      const store = await (await fresh()).open();
      const a = new TranscriptWriter();
      const b = new TranscriptWriter();
      const project = newKey().projectKey;
      const keyA = { projectKey: project, sessionId: a.sessionId };
      const keyB = { projectKey: project, sessionId: b.sessionId };
      const appendsA = [
        [a.user("first prompt of a"), a.assistant("msg_a1", text("hello"))],
        [{ type: "custom-title", customTitle: "Renamed", sessionId: a.sessionId }],
        [a.user("second prompt of a"), { type: "tag", tag: "urgent", sessionId: a.sessionId }],
      ];
      const appendsB = [[b.user("only prompt of b")], [b.assistant("msg_b1", text("ok"))]];
      for (const batch of appendsA) await store.append(keyA, batch);
      for (const batch of appendsB) await store.append(keyB, batch);
      // Subagent lines and a retried batch change no summary.
      await store.append({ ...keyA, subpath: "subagents/agent-s" }, [a.user("a subagent's prompt")]);
      await store.append(keyB, appendsB[1] ?? []);
      const summaries = await store.listSessionSummaries(project);
      expect(summaries.map(({ mtime: _m, ...rest }) => rest).sort(bySession)).toEqual(
        [foldedBySdk(keyA, appendsA), foldedBySdk(keyB, appendsB)].sort(bySession),
      );
      const listed = new Map((await store.listSessions(project)).map((s) => [s.sessionId, s.mtime]));
      for (const summary of summaries) expect(summary.mtime).toBe(listed.get(summary.sessionId));
    });

    it("lists subpaths only with listSubkeys ([] for a session without any, or never written)", async () => {
      const store = await (await fresh()).open();
      const key = newKey();
      await store.append(key, entries(1));
      expect(await store.listSubkeys(key)).toEqual([]);
      await store.append({ ...key, subpath: "subagents/agent-b" }, entries(1));
      await store.append({ ...key, subpath: "subagents/agent-a" }, [untracked("t")]);
      await store.append({ ...key, subpath: "subagents/workflows/w1/agent-c" }, entries(2));
      expect((await store.listSubkeys(key)).sort()).toEqual([
        "subagents/agent-a",
        "subagents/agent-b",
        "subagents/workflows/w1/agent-c",
      ]);
      expect(await store.listSubkeys({ ...key, sessionId: "never-written" })).toEqual([]);
      expect(await store.listSubkeys({ ...key, projectKey: "/never/written" })).toEqual([]);
    });
  });
}

function bySession(a: { sessionId: string }, b: { sessionId: string }): number {
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}
