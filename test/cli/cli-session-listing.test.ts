import { randomUUID } from "node:crypto";
import { openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

/** What `sessions --json` prints of each session. */
interface RowJson {
  sessionId: string;
  name: string;
  label: string;
  title: string;
  parent: string;
  relation: string;
  parentName: string;
  forkTurn: number | null;
}

/** The cells of a `sessions` text line, cut at the header's column starts (cells may hold single spaces). */
function cells(header: string, line: string): Record<string, string> {
  const starts = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index ?? 0 }));
  return Object.fromEntries(
    starts.map(({ name, at }, i) => [name, line.slice(at, starts[i + 1]?.at ?? line.length).trim()]),
  );
}

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest sessions names sidechains, forks and titles (${name})`, () => {
    let db: CliDatabase;
    const main = randomUUID();
    const sidechain = `${main}:sidechain:${randomUUID()}`;
    const ids: Record<
      "main" | "sidechain" | "titled" | "agent" | "worker" | "search" | "interrupted" | "coloured",
      string
    > = {
      main: "",
      sidechain: "",
      titled: "",
      agent: "",
      worker: "",
      search: "",
      interrupted: "",
      coloured: "",
    };
    let forkId = "";
    let titledForkId = "";
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, ...args]);

    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const runtime = await openPalimpsest({ url: db.url });
      try {
        const source = (externalId: string) => ({ source: { format: "claude-code", externalId } });
        /** Starts a session of that external id holding these user (u:) and assistant (a:) messages. */
        const transcript = async (externalId: string, lines: string[]) => {
          const session = await runtime.startSession(source(externalId));
          await session.append(
            lines.map(
              (line) => ({ role: line.startsWith("u:") ? "user" : "assistant", content: line.slice(2) }) as const,
            ),
          );
          return session;
        };
        const mainSession = await transcript(main, [
          "u:<system-reminder>hook output, not the user's words</system-reminder>",
          "u:Fix the login bug in auth.ts: the cookie expires at once",
          "a:Looking at auth.ts.",
          "u:Now add a test for it",
          "a:Added.",
        ]);
        ids.main = mainSession.id;
        const side = await runtime.startSession({
          ...source(sidechain),
          parent: { sessionId: mainSession.id, relation: "subagent" },
        });
        ids.sidechain = side.id;
        await side.append({ role: "user", content: "Explore the repository layout and list the entry points" });
        ids.titled = (await runtime.startSession({ title: "Refactor billing" })).id;
        // Claude Code writes an interruption and a local command's output in the user's role: not the title.
        ids.interrupted = (
          await transcript("interrupted-session", [
            "u:[Request interrupted by user for tool use]",
            "u:<local-command-stdout>Compacted the conversation</local-command-stdout>",
            "u:Rename the config loader",
            "a:Renamed.",
          ])
        ).id;
        // A transcript's title and name with escape sequences and other control characters.
        ids.coloured = (
          await runtime.startSession({
            ...source("\x1b]0;pwned\x07coloured-\x1b[1mname"),
            title: "\x1b[31mred\x1b[0m alert\x07\rnow",
          })
        ).id;
        for (const [key, external] of [
          ["agent", "billing-agent-7f3a"],
          ["worker", "billing-worker-22c1"],
          ["search", "search-agent-91d0"],
        ] as const) {
          ids[key] = (await runtime.startSession(source(external))).id;
        }
      } finally {
        await runtime.close();
      }
      const forked = await cli("--json", "fork", ids.main, "--turn", "1");
      expect(forked.code, forked.stderr).toBe(0);
      forkId = (JSON.parse(forked.stdout) as { sessionId: string }).sessionId;
      const titledFork = await cli("--json", "fork", ids.titled);
      titledForkId = (JSON.parse(titledFork.stdout) as { sessionId: string }).sessionId;
    });
    afterAll(() => db.dispose());

    it("shows a sidechain's name short under a parent column, a fork's name from its parent, and titles or first words", async () => {
      const json = await cli("--json", "sessions");
      expect(json.code, json.stderr).toBe(0);
      const rows = new Map((JSON.parse(json.stdout) as { sessions: RowJson[] }).sessions.map((s) => [s.sessionId, s]));
      expect(rows.get(forkId)).toMatchObject({
        name: "",
        label: `${main} (fork @turn 1)`,
        parent: ids.main,
        relation: "fork",
        parentName: main,
        forkTurn: 1,
      });
      // A parent without a name stands in the fork's name by its id.
      expect(rows.get(titledForkId)).toMatchObject({ label: `${ids.titled} (fork @turn 0)`, parent: ids.titled });
      expect(rows.get(ids.sidechain)).toMatchObject({ name: sidechain, relation: "subagent", parent: ids.main });
      expect(rows.get(ids.main)?.title).toBe("Fix the login bug in auth.ts: the cookie expires at once");

      const text = await cli("sessions");
      expect(text.code, text.stderr).toBe(0);
      const [header = "", ...lines] = text.stdout.trimEnd().split("\n");
      expect(header).toMatch(/^session\s+name\s+parent\s+live msgs\s+live tokens\s+compactions\s+title$/);
      const row = (id: string) => cells(header, lines.find((l) => l.startsWith(id)) ?? "");
      for (const line of lines) {
        expect(cells(header, line).name?.length ?? 0).toBeLessThanOrEqual(36);
        expect(cells(header, line).parent?.length ?? 0).toBeLessThanOrEqual(36);
      }
      expect(row(ids.sidechain)).toMatchObject({
        parent: main,
        title: "Explore the repository layout and list the entry …",
      });
      expect(row(ids.sidechain).name).toMatch(/^↳ sidechain:[0-9a-f-]+…$/);
      expect(row(ids.main)).toMatchObject({
        name: main,
        parent: "",
        title: "Fix the login bug in auth.ts: the cookie expires …",
      });
      expect(row(forkId).parent).toBe(main);
      expect(row(forkId).name).toMatch(/^[0-9a-f-]+… \(fork @turn 1\)$/);
      expect(main.startsWith(row(forkId).name?.split("…")[0] ?? "-")).toBe(true);
      expect(row(titledForkId).parent).toBe(ids.titled);
      expect(row(ids.titled)).toMatchObject({ name: "", parent: "", title: "Refactor billing" });
    });

    it("titles a session by its first user request, not an interruption or command output the harness wrote", async () => {
      const json = await cli("--json", "sessions");
      const rows = new Map((JSON.parse(json.stdout) as { sessions: RowJson[] }).sessions.map((s) => [s.sessionId, s]));
      expect(rows.get(ids.interrupted)?.title).toBe("Rename the config loader");
    });

    it("prints no terminal control characters of a title or name in the table (--json keeps them)", async () => {
      const json = await cli("--json", "sessions");
      const rows = new Map((JSON.parse(json.stdout) as { sessions: RowJson[] }).sessions.map((s) => [s.sessionId, s]));
      expect(rows.get(ids.coloured)).toMatchObject({
        name: "\x1b]0;pwned\x07coloured-\x1b[1mname",
        title: "\x1b[31mred\x1b[0m alert\x07\rnow",
      });
      const text = await cli("sessions");
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).not.toMatch(/[^\P{Cc}\n]/u);
      const [header = "", ...lines] = text.stdout.trimEnd().split("\n");
      const line = lines.find((l) => l.startsWith(ids.coloured)) ?? "";
      expect(cells(header, line)).toMatchObject({ name: "coloured-name", title: "red alert now" });
    });

    it("view takes a unique prefix of a name; an ambiguous one is VALIDATION listing each candidate's id and name", async () => {
      const [search, worker, ambiguous, unknown, idPrefix] = await Promise.all([
        cli("--json", "view", "search"),
        cli("--json", "view", "billing-w"),
        cli("--json", "view", "billing"),
        cli("--json", "view", `nothing-${randomUUID()}`),
        cli("--json", "view", ids.titled.slice(0, 30)), // past the shared time bits of a UUIDv7
      ]);
      expect(JSON.parse(search.stdout)).toMatchObject({ sessionId: ids.search });
      expect(JSON.parse(worker.stdout)).toMatchObject({ sessionId: ids.worker });
      expect(JSON.parse(idPrefix.stdout)).toMatchObject({ sessionId: ids.titled });
      expect(ambiguous.code, `${ambiguous.stdout}${ambiguous.stderr}`).toBe(2);
      const error = jsonError(ambiguous);
      expect(error.code).toBe("VALIDATION");
      expect(error.message).toBe(
        "session name prefix billing is ambiguous: 2 sessions' names begin with it; the full id or the full name of one selects it",
      );
      const issues = (error.details as { issues: { path: string; code: string; message: string }[] }).issues;
      expect([...issues].sort((a, b) => a.message.localeCompare(b.message))).toEqual([
        { path: ids.agent, code: "ambiguous", message: "billing-agent-7f3a" },
        { path: ids.worker, code: "ambiguous", message: "billing-worker-22c1" },
      ]);
      const text = await cli("view", "billing");
      expect(text.stderr).toContain(`${ids.agent}: billing-agent-7f3a`);
      expect(unknown.code).toBe(1);
      expect(jsonError(unknown)).toMatchObject({ code: "NOT_FOUND", details: { kind: "session" } });
    });
  });
}
