/** A mirrored session handed off in Palimpsest: its fold stops quietly, the SDK's entries keep arriving. */
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeCodeSession } from "../../examples/claude-code-session.ts";
import { type CliDatabase, postgresCliDatabase, sqliteCliDatabase } from "../cli/harness.ts";
import { postgresServer } from "../support/postgres-server.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

const { sessionId, lines } = claudeCodeSession("/work/app");
const entries = lines
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as SessionStoreEntry);
const key = { projectKey: "-work-app", sessionId };

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`a handed-off mirrored session (${name})`, () => {
    let db: CliDatabase;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
    });
    afterAll(() => db.dispose());

    it("takes no more folds and reports no error; load still returns every entry", async () => {
      const errors: unknown[] = [];
      const store = await openSessionStore({ url: db.url, onError: (error) => errors.push(error) });
      try {
        await store.append(key, entries.slice(0, 5));
        const [id = ""] = await store.sessionIds(key);
        const before = (await store.runtime.resume(id)).view().messages;
        const successor = await store.runtime.handOff(await store.runtime.resume(id));
        await store.append(key, entries.slice(5));
        await store.flush();
        expect(errors).toEqual([]);
        expect(await store.load(key)).toEqual(entries);
        expect((await store.runtime.resume(id)).view().messages).toEqual(before);
        expect(successor.view().messages.length).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    });
  });
}
