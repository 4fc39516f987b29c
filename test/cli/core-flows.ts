import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, type CliResult, collidingStems, jsonError, ROOT, runPalimpsest } from "./harness.ts";

const DEMO = join(ROOT, "examples/demo-session.jsonl");
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

interface ViewMessage {
  id: string;
  role: string;
  content: { type: string; text?: string }[];
  toolCalls?: { id: string; name: string; arguments: string }[];
  toolCallId?: string;
  isError?: boolean;
  metadata?: Record<string, unknown>;
}
interface ViewJson {
  sessionId: string;
  viewVersion: number;
  tokens: number;
  messages: ViewMessage[];
}
interface SessionRow {
  sessionId: string;
  name: string;
  title: string;
  events: number;
  liveMessages: number;
  liveTokens: number;
  compactions: number;
}
interface ImportRow {
  sessionId: string;
  externalId: string;
  messages: number;
  compactions: number;
  created: boolean;
  resumed: boolean;
}
interface SupersededEvent {
  type: string;
  data: {
    compactionId: string;
    targets: string[];
    stats: { tokensBefore: number; tokensAfter: number };
  };
}

/** Every session's view (as JSON text) and event count, read in-process through the store. */
async function allViews(url: string): Promise<Record<string, string>> {
  const runtime = await openPalimpsest({ url });
  try {
    const out: Record<string, string> = {};
    for (const summary of await runtime.sessions()) {
      const view = (await runtime.resume(summary.sessionId)).view();
      out[summary.sessionId] = `${summary.version} ${JSON.stringify(view)}`;
    }
    return out;
  } finally {
    await runtime.close();
  }
}

const textOf = (m: ViewMessage) => m.content.map((p) => p.text ?? "").join("");
const shape = (messages: readonly ViewMessage[]) => messages.map((m) => ({ id: m.id, role: m.role, text: textOf(m) }));

function ok(r: CliResult): string {
  expect(r.stderr, `stderr of a successful command`).toBe("");
  expect(r.code).toBe(0);
  return r.stdout;
}

/**
 * Registers the CLI's core flows (import, sessions, view, compact/history/expand, errors) against a
 * database made by `open`; the tests of one call run in order and share that database.
 */
export function defineCoreFlows(label: string, open: () => Promise<CliDatabase>): void {
  describe(`palimpsest CLI core flows (${label})`, () => {
    let db: CliDatabase;
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, ...args]);
    const cliJson = async <T>(...args: string[]) => JSON.parse(ok(await cli("--json", ...args))) as T;
    const sessionRows = async () => (await cliJson<{ sessions: SessionRow[] }>("sessions")).sessions;

    let demoId = "";
    let preView: ViewJson;

    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      await db?.dispose();
    });

    it("imports the demo once, detects its format, lists and views it in every form", {
      timeout: 120_000,
    }, async () => {
      // text import: a table with the new session id, "created", and no progress for a small file
      const first = ok(await cli("import", DEMO));
      demoId = UUID.exec(first)?.[0] ?? "";
      expect(demoId).not.toBe("");
      expect(first).toMatch(/^session\s+messages\s+compactions\s+status\s+parent\n/);
      expect(first).toMatch(new RegExp(`${demoId}\\s+55\\s+0\\s+created`));

      const before = await sessionRows();
      expect(before).toHaveLength(1);

      // again, --json and with --format forced to what detection found: nothing new
      const again = await cliJson<ImportRow[]>("import", DEMO, "--format", "openai");
      expect(again).toEqual([
        { sessionId: demoId, externalId: "demo-session", messages: 55, compactions: 0, created: false, resumed: false },
      ]);
      const text = ok(await cli("import", DEMO));
      expect(text).toMatch(new RegExp(`${demoId}\\s+55\\s+0\\s+already imported`));
      expect(await sessionRows()).toEqual(before);

      // forced format on a file whose name says nothing: a new session, same content
      const copy = join(db.dir, "forced.log");
      const { readFile } = await import("node:fs/promises");
      await writeFile(copy, await readFile(DEMO));
      const forced = await cliJson<ImportRow[]>("import", copy, "--format", "openai");
      expect(forced).toMatchObject([{ externalId: "forced", messages: 55, created: true }]);
      expect(forced[0]?.sessionId).not.toBe(demoId);

      // sessions: text table and JSON with names, live messages, live tokens, compactions and the user's first words
      const rows = await sessionRows();
      expect(rows).toHaveLength(2);
      const demoRow = rows.find((r) => r.sessionId === demoId);
      expect(demoRow).toMatchObject({
        name: "demo-session",
        title: "The parser gets operator precedence wrong: 1 + 2 * 3 evalua…",
        events: 56,
        liveMessages: 55,
        compactions: 0,
      });
      expect(demoRow?.liveTokens).toBeGreaterThan(1000);
      const table = ok(await cli("sessions"));
      expect(table.split("\n")[0]).toMatch(/^session\s+name\s+parent\s+live msgs\s+live tokens\s+compactions\s+title$/);
      expect(table).toMatch(
        new RegExp(`${demoId}\\s+demo-session\\s+55\\s+${demoRow?.liveTokens}\\s+0\\s+The parser gets operator`),
      );

      // view, by an 8-character prefix: text, JSON, OpenAI and Anthropic bodies
      const prefix = demoId.slice(0, 8);
      const view = ok(await cli("view", prefix));
      const lines = view.trimEnd().split("\n");
      expect(lines[0]).toBe(`session ${demoId}: 55 live messages, ${demoRow?.liveTokens} tokens, view version 0`);
      expect(lines).toHaveLength(56);
      expect(lines[3]).toMatch(/^\s+2 assistant .*→ run_tests\(/);
      preView = await cliJson<ViewJson>("view", prefix);
      expect(preView.sessionId).toBe(demoId);
      expect(preView.tokens).toBe(demoRow?.liveTokens);
      expect(preView.messages.map((m) => m.id)).toEqual(Array.from({ length: 55 }, (_, i) => `demo-session:${i}`));
      const openai = JSON.parse(ok(await cli("view", demoId, "--format", "openai"))) as {
        messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
      };
      expect(openai.messages).toHaveLength(55);
      expect(openai.messages[0]?.role).toBe("system");
      expect(openai.messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_001" });
      const anthropic = JSON.parse(ok(await cli("view", prefix, "--format", "anthropic"))) as {
        system: unknown;
        messages: { role: string; content: { type: string }[] }[];
      };
      expect(anthropic.system).toBe(textOf(preView.messages[0] as ViewMessage));
      expect(anthropic.messages[0]?.role).toBe("user");
      expect(anthropic.messages.some((m) => m.role === "system")).toBe(false);
      expect(anthropic.messages[1]?.content.some((c) => c.type === "tool_use")).toBe(true);
      for (const [a, b] of anthropic.messages.slice(1).entries()) {
        expect(b.role, `alternation at ${a + 1}`).not.toBe(anthropic.messages[a]?.role);
      }
    });

    it("rejects ambiguous and unknown session prefixes", { timeout: 120_000 }, async () => {
      const { stems, prefix } = collidingStems(`amb-${db.name}`);
      for (const stem of stems) {
        const file = join(db.dir, `${stem}.jsonl`);
        await writeFile(file, `${JSON.stringify({ role: "user", content: `hello from ${stem}` })}\n`);
        expect(ok(await cli("import", file))).toMatch(/created/);
      }
      const ambiguous = await cli("--json", "view", prefix);
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stdout).toBe("");
      const error = jsonError(ambiguous);
      expect(error.code).toBe("VALIDATION");
      expect(error.message).toMatch(
        /^session prefix \S+ is ambiguous: \d+ sessions' ids begin with it; the full id or the full name of one selects it$/,
      );
      expect(error.details?.issues).toEqual(
        expect.arrayContaining([expect.objectContaining({ message: expect.stringMatching(new RegExp(`^${prefix}`)) })]),
      );
      expect((error.details?.issues as unknown[] | undefined)?.length).toBeGreaterThanOrEqual(2);
      const unknown = await cli("view", "ffffffff-nope");
      expect(unknown).toMatchObject({ code: 1, stdout: "" });
      expect(unknown.stderr).toBe("error [NOT_FOUND] session not found: ffffffff-nope\n");
    });

    let first: SupersededEvent["data"];
    let second: SupersededEvent["data"];

    it("compacts ranges, lists them in history and expands them to the originals", { timeout: 120_000 }, async () => {
      const ids = preView.messages.map((m) => m.id);
      const summary1 = join(db.dir, "summary-1.txt");
      await writeFile(summary1, "Ran the tests (7 failures) and read parser, lexer, ast and eval.");
      const summary2 = join(db.dir, "summary-2.txt");
      await writeFile(summary2, "Searched for the precedence table; adjusted level 0.");

      // text: --to is message 10 (a tool call), widened over its result 11
      const out = ok(
        await cli(
          "compact",
          demoId.slice(0, 6),
          "--summary-file",
          summary1,
          "--from",
          ids[2] ?? "",
          "--to",
          ids[10] ?? "",
        ),
      );
      const m =
        /^compaction (\S+) \(summary\): superseded (\d+) messages, (\d+) → (\d+) tokens \(reclaimed (\d+)\)\n$/.exec(
          out,
        );
      expect(m, out).not.toBeNull();
      const [, id1, count, before, after, reclaimed] = m as unknown as string[];
      expect(Number(count)).toBe(10);
      expect(Number(before)).toBe(preView.tokens);
      expect(Number(reclaimed)).toBe(Number(before) - Number(after));
      expect(Number(reclaimed)).toBeGreaterThan(0);

      // --json: the event itself
      const event = await cliJson<SupersededEvent>(
        "compact",
        demoId,
        "--summary-file",
        summary2,
        "--from",
        ids[12] ?? "",
        "--to",
        ids[14] ?? "",
      );
      expect(event.type).toBe("messages.superseded");
      expect(event.data.targets).toEqual(ids.slice(12, 16));
      expect(event.data.stats.tokensBefore).toBe(Number(after));
      second = event.data;

      // history: both, text and JSON
      const history = await cliJson<
        { compactionId: string; mode: string; trigger: string; targets: string[]; producer: { policy: string } }[]
      >("history", demoId);
      expect(history.map((h) => h.compactionId)).toEqual([id1, second.compactionId]);
      expect(history[0]).toMatchObject({ mode: "summary", trigger: "manual", producer: { policy: "explicit" } });
      expect(history[0]?.targets).toEqual(ids.slice(2, 12));
      first = { compactionId: id1 ?? "", targets: ids.slice(2, 12), stats: { tokensBefore: 0, tokensAfter: 0 } };
      const historyText = ok(await cli("history", demoId.slice(0, 8)));
      expect(historyText).toMatch(
        new RegExp(`${id1}\\s+\\d+\\s+summary\\s+manual\\s+10\\s+${before} → ${after}\\s+explicit`),
      );
      expect(historyText).toContain(second.compactionId);

      // expand: exactly the original messages (ids, roles, texts and every field) of the pre-compaction view
      const expanded1 = await cliJson<{ seq: number; message: ViewMessage }[]>("expand", demoId, id1 ?? "");
      expect(shape(expanded1.map((e) => e.message))).toEqual(shape(preView.messages.slice(2, 12)));
      expect(expanded1.map((e) => e.message)).toEqual(preView.messages.slice(2, 12));
      const expanded2 = await cliJson<{ message: ViewMessage }[]>("expand", demoId, second.compactionId);
      expect(expanded2.map((e) => e.message)).toEqual(preView.messages.slice(12, 16));
      const expandText = ok(await cli("expand", demoId, id1 ?? ""));
      expect(expandText.split("\n")[0]).toBe(`10 original messages behind compaction ${id1}:`);
    });

    it("a fresh run (its own store, nothing cached) resumes the compacted view, identically every time", {
      timeout: 120_000,
    }, async () => {
      const a = ok(await cli("--json", "view", demoId));
      const b = ok(await cli("--json", "view", demoId.slice(0, 8)));
      expect(b).toBe(a);
      const view = JSON.parse(a) as ViewJson;
      const ids = preView.messages.map((m) => m.id);
      expect(view.messages).toHaveLength(55 - 14 + 2);
      expect(view.messages.map((m) => m.id)).toEqual([
        ...ids.slice(0, 2),
        view.messages[2]?.id,
        view.messages[3]?.id,
        ...ids.slice(16),
      ]);
      expect(textOf(view.messages[2] as ViewMessage)).toBe(
        "Ran the tests (7 failures) and read parser, lexer, ast and eval.",
      );
      expect(textOf(view.messages[3] as ViewMessage)).toBe("Searched for the precedence table; adjusted level 0.");
      expect(view.messages.slice(4)).toEqual(preView.messages.slice(16));
      expect(view.tokens).toBe(second.stats.tokensAfter);
      const rows = await sessionRows();
      expect(rows.find((r) => r.sessionId === demoId)).toMatchObject({
        liveMessages: 43,
        liveTokens: view.tokens,
        compactions: 2,
      });
      // the superseded ids are no longer live
      expect(view.messages.some((m) => first.targets.includes(m.id))).toBe(false);
    });

    it("fails with stable codes and loses nothing", { timeout: 180_000 }, async () => {
      const sessionsBefore = ok(await cli("--json", "sessions"));
      const demoBefore = ok(await cli("--json", "view", demoId));
      const viewsBefore = await allViews(db.url); // in-process: one CLI process per session would be slow
      expect(Object.keys(viewsBefore)).toHaveLength(
        (JSON.parse(sessionsBefore) as { sessions: unknown[] }).sessions.length,
      );
      const liveIds = (JSON.parse(demoBefore) as ViewJson).messages.map((m) => m.id);

      const write = async (name: string, text: string) => {
        const file = join(db.dir, name);
        await writeFile(file, text);
        return file;
      };
      const expectError = async (args: string[], code: string, exit: number) => {
        const r = await cli("--json", ...args);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(exit);
        expect(r.stdout).toBe("");
        const error = jsonError(r);
        expect(error.code).toBe(code);
        return error;
      };

      // missing file: text and JSON
      const missing = join(db.dir, "no-such-file.jsonl");
      const text = await cli("import", missing);
      expect(text).toMatchObject({ code: 1, stdout: "" });
      expect(text.stderr.split("\n")[0]).toBe(`error [NOT_FOUND] file not found: ${missing}`);
      const notFound = await expectError(["import", missing], "NOT_FOUND", 1);
      expect(notFound.details).toEqual({ kind: "file", id: missing });

      // a malformed JSONL line: VALIDATION (exit 2) naming the line, nothing written
      const lines = [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: "a" },
      ].map((l) => JSON.stringify(l));
      const broken = await write("broken.jsonl", `${lines.join("\n")}\n{"role":"user","content":\n${lines[1]}\n`);
      const malformed = await expectError(["import", broken], "VALIDATION", 2);
      expect(malformed.message).toBe("broken.jsonl:4: malformed JSON on line 4");
      expect(malformed.details?.path).toBe("broken.jsonl:4");
      const malformedText = await cli("import", broken);
      expect(malformedText.code).toBe(2);
      expect(malformedText.stderr).toMatch(/^error \[VALIDATION\] broken\.jsonl:4: malformed JSON on line 4\n/);

      // an unknown role in an OpenAI chat file (array and JSONL forms)
      const wizard = await write(
        "wizard.json",
        JSON.stringify([
          { role: "user", content: "hi" },
          { role: "wizard", content: "abracadabra" },
        ]),
      );
      const role = await expectError(["import", wizard], "VALIDATION", 2);
      expect(role.message).toBe('wizard.json[1]: unknown role "wizard"');
      const wizardLines = await write(
        "wizard.jsonl",
        `${lines[1]}\n\n${JSON.stringify({ role: "wizard", content: "x" })}\n`,
      );
      expect((await expectError(["import", wizardLines], "VALIDATION", 2)).details?.path).toBe("wizard.jsonl:3");

      // formats: an unknown --format, and a forced format that does not fit the file
      const bogus = await expectError(["import", DEMO, "--format", "bogus"], "VALIDATION", 2);
      expect(bogus.message).toContain("bogus");
      await expectError(["import", DEMO, "--format", "tau-bench"], "VALIDATION", 2);
      const nothing = await expectError(["import", DEMO, "--format", "claude-code"], "VALIDATION", 2);
      expect(nothing.message).toContain("no messages found");
      expect((await expectError(["view", demoId, "--format", "html"], "VALIDATION", 2)).message).toContain("html");
      await expectError(["import", await write("prose.txt", "just some prose\n")], "VALIDATION", 2);

      // compact: reversed range, unknown or no longer live ids, empty or missing summary, unknown session
      const summary = await write("summary.txt", "a summary");
      const empty = await write("empty.txt", "");
      const blank = await write("blank.txt", "  \n\t\n");
      const range = (from: string, to: string, file = summary) => [
        "compact",
        demoId,
        "--summary-file",
        file,
        "--from",
        from,
        "--to",
        to,
      ];
      const [a, b] = [liveIds[5] ?? "", liveIds[9] ?? ""];
      const reversed = await expectError(range(b, a), "VALIDATION", 2);
      expect(reversed.message).toContain("--from comes after --to");
      expect((await expectError(range("nope", b), "NOT_FOUND", 1)).details).toEqual({ kind: "message", id: "nope" });
      expect((await expectError(range(a, "demo-session:3"), "NOT_FOUND", 1)).details).toEqual({
        kind: "message",
        id: "demo-session:3",
      });
      expect((await expectError(range(a, b, empty), "VALIDATION", 2)).message).toBe("the summary is empty");
      await expectError(range(a, b, blank), "VALIDATION", 2);
      const noSummary = await expectError(range(a, b, join(db.dir, "nope.txt")), "NOT_FOUND", 1);
      expect(noSummary.details?.kind).toBe("file");
      await expectError(["compact", "ffffffff-x", "--summary-file", summary, "--from", a, "--to", b], "NOT_FOUND", 1);
      await expectError(["expand", demoId, "no-such-compaction"], "NOT_FOUND", 1);
      await expectError(["history", "ffffffff-x"], "NOT_FOUND", 1);

      // nothing changed: the catalogue and every view are byte-identical
      expect(ok(await cli("--json", "sessions"))).toBe(sessionsBefore);
      expect(ok(await cli("--json", "view", demoId))).toBe(demoBefore);
      expect(await allViews(db.url)).toEqual(viewsBefore);
    });

    it("imports a tool result without a call and a call without a result with the documented repairs", async () => {
      const file = join(db.dir, "repairs.jsonl");
      const messages = [
        { role: "user", content: "go" },
        { role: "tool", tool_call_id: "ghost", content: "orphan output" },
        {
          role: "assistant",
          content: "calling",
          tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
        },
        { role: "user", content: "never mind" },
        { role: "assistant", content: "ok" },
      ];
      await writeFile(file, messages.map((m) => JSON.stringify(m)).join("\n"));
      const [row] = await cliJson<ImportRow[]>("import", file);
      expect(row).toMatchObject({ externalId: "repairs", messages: 6, created: true });
      const view = await cliJson<ViewJson>("view", row?.sessionId ?? "");
      expect(view.messages.map((m) => [m.id, m.role])).toEqual([
        ["repairs:0", "user"],
        ["repairs:1", "user"],
        ["repairs:2", "assistant"],
        ["repairs:no-result:c1", "tool"],
        ["repairs:3", "user"],
        ["repairs:4", "assistant"],
      ]);
      // the orphan result is kept as a user message marked in metadata
      expect(view.messages[1]?.content).toEqual([
        { type: "text", text: "[tool result for unknown call ghost]" },
        { type: "text", text: "orphan output" },
      ]);
      expect(view.messages[1]?.metadata).toEqual({ orphanToolResult: true, originalToolCallId: "ghost" });
      // the unanswered call gets a synthetic error result
      expect(view.messages[3]).toMatchObject({
        toolCallId: "c1",
        isError: true,
        content: [{ type: "text", text: "[no result recorded]" }],
        metadata: { synthetic: true },
      });
    });
  });
}
