/**
 * The `palimpsest` command on sessions the Claude Agent SDK SessionStore mirrored: named by the SDK's
 * session id, viewed with the compaction Claude Code made, and erased with their mirrored entries.
 */
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, runPalimpsest } from "../cli/harness.ts";
import { DATABASES, EXAMPLE_ENTRIES, EXAMPLE_KEY } from "./example-session.ts";

const { sessionId } = EXAMPLE_KEY;
const entries = EXAMPLE_ENTRIES;
const key = EXAMPLE_KEY;

for (const [name, make] of DATABASES) {
  describe.skipIf(make === undefined)(`palimpsest on a mirrored Claude Agent SDK session (${name})`, () => {
    let db: CliDatabase;
    let palimpsestId = "";
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);

    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const store = await openSessionStore({ url: db.url });
      // As the SDK mirrors a turn: several batches, one assistant message split across two of them.
      await store.append(key, entries.slice(0, 2));
      await store.append(key, entries.slice(2, 5));
      await store.append(key, entries.slice(5));
      [palimpsestId = ""] = await store.sessionIds(key);
      await store.close();
    });
    afterAll(() => db.dispose());

    it("names the session by the SDK's session id in sessions, view and history", async () => {
      const [sessions, view, history] = await Promise.all([
        cli("sessions"),
        cli("view", sessionId),
        cli("history", sessionId),
      ]);
      for (const result of [sessions, view, history]) expect(result.code, result.stderr).toBe(0);
      const listed = (JSON.parse(sessions.stdout) as { sessions: { sessionId: string; name: string }[] }).sessions;
      expect(listed).toContainEqual(expect.objectContaining({ sessionId: palimpsestId, name: sessionId }));
      const shown = JSON.parse(view.stdout) as { sessionId: string; messages: { role: string }[] };
      expect(shown.sessionId).toBe(palimpsestId);
      expect(shown.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
      expect(JSON.parse(history.stdout)).toMatchObject([{ mode: "import", trigger: "manual" }]);
    });

    it("erase removes the mirrored entries too: the SDK loads nothing afterwards", async () => {
      const erased = await cli("erase", sessionId, "--yes", "--reason", "retention");
      expect(erased.code, erased.stderr).toBe(0);
      expect(JSON.parse(erased.stdout)).toMatchObject({ sessionId: palimpsestId, erased: true });
      const store = await openSessionStore({ url: db.url });
      try {
        expect(await store.load(key)).toBeNull();
        expect(await store.listSessions(key.projectKey)).toEqual([]);
        expect((await store.runtime.store.getSession(palimpsestId))?.erasedAt).toBeDefined();
      } finally {
        await store.close();
      }
    });
  });
}
