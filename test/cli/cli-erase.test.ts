import { openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../runtime/handoff-fixtures.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

const MARKER = "CLIERASEMARKER";

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest erase (${name})`, () => {
    let db: CliDatabase;
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);
    /** A session with two exchanges and the marker in a message; returns its id. */
    const seed = async (): Promise<string> => {
      const runtime = await openPalimpsest({ url: db.url });
      const session = await runtime.startSession({ model: "gpt-4.1", title: `${MARKER} title` });
      await session.append([...exchange(0), { role: "user", content: `${MARKER} said this` }, ...exchange(1)]);
      await runtime.close();
      return session.id;
    };
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
    });
    afterAll(() => db.dispose());

    it("refuses without --yes, or with a prefix of the id (which other commands take), and changes nothing", async () => {
      const id = await seed();
      const refused = await cli("erase", id);
      expect(refused.code).toBe(2);
      expect(jsonError(refused)).toMatchObject({ code: "VALIDATION" });
      const prefixed = await cli("erase", id.slice(0, 8), "--yes");
      expect(prefixed.code).toBe(1);
      expect(jsonError(prefixed)).toMatchObject({ code: "NOT_FOUND", details: { kind: "session" } });
      expect(jsonError(prefixed).message).toContain("erase takes a session's full id or its name, never a prefix");
      const view = await cli("view", id);
      expect(view.code).toBe(0);
      expect(view.stdout).toContain(MARKER);
    });

    it("erases with --yes: the view keeps its messages as tombstones, a second erase is a no-op", async () => {
      const id = await seed();
      const before = JSON.parse((await cli("view", id)).stdout) as { tokens: number; messages: { id: string }[] };
      const erased = await cli("erase", id, "--yes", "--reason", "ticket 7");
      expect(erased).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(erased.stdout)).toMatchObject({
        sessionId: id,
        erased: true,
        messages: before.messages.length,
      });
      const view = await cli("view", id);
      expect(view.code).toBe(0);
      expect(view.stdout).not.toContain(MARKER);
      const after = JSON.parse(view.stdout) as typeof before;
      expect(after.tokens).toBe(before.tokens);
      expect(after.messages.map((m) => m.id)).toEqual(before.messages.map((m) => m.id));
      expect((await cli("history", id)).code).toBe(0);
      const again = await cli("erase", id, "--yes");
      expect(JSON.parse(again.stdout)).toMatchObject({ sessionId: id, erased: false });
      const text = await runPalimpsest(["--db", db.url, "erase", id, "--yes"]);
      expect(text.stdout).toContain("already erased");
    });

    it("sessions and view say a session was erased, and when", async () => {
      const id = await seed();
      await cli("erase", id, "--yes");
      const listed = JSON.parse((await cli("sessions")).stdout) as {
        sessions: { sessionId: string; erasedAt: string }[];
      };
      const row = listed.sessions.find((s) => s.sessionId === id);
      expect(row?.erasedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      const text = await runPalimpsest(["--db", db.url, "sessions"]);
      expect(text.stdout).toContain(`(erased ${row?.erasedAt})`);
      const view = await runPalimpsest(["--db", db.url, "view", id]);
      expect(view.stdout.split("\n")[0]).toContain(`(erased ${row?.erasedAt}: its messages are tombstones)`);
    });

    it("compact refuses an erased session with session-erased, forced or not", async () => {
      const id = await seed();
      await cli("erase", id, "--yes");
      for (const flags of [[], ["--force"]]) {
        const refused = await cli("compact", id, ...flags);
        expect(refused.code, flags.join(" ")).toBe(1);
        expect(jsonError(refused), flags.join(" ")).toMatchObject({
          code: "INVARIANT_VIOLATED",
          details: { rule: "session-erased" },
        });
      }
    });

    it("maintain --purge-erased rewrites what held erased content and reports it; without a task it is a usage error", async () => {
      const id = await seed();
      expect((await cli("erase", id, "--yes")).code).toBe(0);
      const purged = await cli("maintain", "--purge-erased");
      expect(purged).toMatchObject({ code: 0, stderr: "" });
      const result = JSON.parse(purged.stdout) as { relations: { name: string; bytesAfter: number }[]; ms: number };
      expect(result.relations.length).toBeGreaterThan(0);
      expect(result.relations[0]?.name).toMatch(name === "PostgreSQL" ? /^events$/ : /\.db$/);
      const text = await runPalimpsest(["--db", db.url, "maintain", "--purge-erased", "--wait-timeout", "5000"]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^relation\s+before\s+after\s+rewritten in/);
      expect(text.stdout).toMatch(/purged in [\d.]+ ms, of which [\d.]+ ms waiting/);
      const view = await cli("view", id);
      expect(view.code).toBe(0);
      expect(view.stdout).not.toContain(MARKER);
      for (const args of [["maintain"], ["maintain", "--purge-erased", "--wait-timeout", "-1"]]) {
        const refused = await cli(...args);
        expect(refused.code, args.join(" ")).toBe(2);
        expect(jsonError(refused)).toMatchObject({ code: "VALIDATION" });
      }
    });

    it("maintain --partition divides a PostgreSQL log, a line per table on stderr; elsewhere, or with both tasks, a usage error", async () => {
      const id = await seed();
      const refusals = [
        ["maintain", "--partition", "1"],
        ["maintain", "--partition", "4", "--purge-erased"],
      ];
      for (const args of name === "PostgreSQL" ? refusals : [["maintain", "--partition", "4"], ...refusals]) {
        const refused = await cli(...args);
        expect(refused.code, args.join(" ")).toBe(2);
        expect(jsonError(refused)).toMatchObject({ code: "VALIDATION" });
      }
      if (name !== "PostgreSQL") {
        const sqlite = await runPalimpsest(["--db", db.url, "maintain", "--partition", "4"]);
        expect(sqlite.code).toBe(2);
        expect(sqlite.stderr).toMatch(
          /^error \[VALIDATION\] maintain --partition works only on a PostgreSQL database; this one is a SQLite database\n/,
        );
        expect(sqlite.stderr).not.toContain("partitionLog");
        return;
      }
      const divided = await cli("maintain", "--partition", "4");
      expect(divided.code).toBe(0);
      const result = JSON.parse(divided.stdout) as {
        partitions: number;
        tables: { name: string; converted: boolean }[];
      };
      expect(result.partitions).toBe(4);
      expect(result.tables.every((t) => t.converted)).toBe(true);
      expect(divided.stderr).toMatch(/^sessions: \d+ rows divided in \d+ ms\nevents: \d+ rows divided/);
      const again = await runPalimpsest(["--db", db.url, "maintain", "--partition", "4"]);
      expect(again.code).toBe(0);
      expect(again.stderr).toContain("events: already divided so");
      expect(again.stdout).toMatch(/^0 of \d+ tables divided into 4 partitions by session in \d+ ms/);
      expect(JSON.parse((await cli("view", id)).stdout)).toMatchObject({ sessionId: id });
    });

    it("an unknown session is NOT_FOUND", async () => {
      const missing = await cli("erase", "no-such-session", "--yes");
      expect(missing.code).toBe(1);
      expect(jsonError(missing)).toMatchObject({ code: "NOT_FOUND", details: { kind: "session" } });
    });
  });
}
