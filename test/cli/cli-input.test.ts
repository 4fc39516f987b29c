import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, type CliOptions, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

/** Every kind of odd text: ZWJ emoji, flags, RTL (Arabic, Hebrew, override), combining marks, NUL, BOM, lone surrogates. */
const ODD =
  "👩‍👩‍👧‍👦 🏳️‍🌈 🧑🏽‍💻 مرحبا بالعالم שלום עולם \u202Eevil\u202C e\u0301\u0302\u0303 Z\u0351\u0352\u0353 \u0000 nul \uFEFF bom \uD800 lone-high \uDC00 lone-low \u{10FFFF} \r\n\t end";

interface ViewJson {
  messages: {
    id: string;
    role: string;
    content: { type: string; text?: string }[];
    toolCalls?: { arguments: string }[];
  }[];
}

describe("palimpsest CLI on big and odd input (SQLite file)", () => {
  let db: CliDatabase;
  beforeAll(async () => {
    db = await sqliteCliDatabase();
  });
  afterAll(async () => {
    await db?.dispose();
  });

  it("keeps a 10 MB tool output with unusual Unicode byte for byte", { timeout: 180_000 }, async () => {
    const chunk = `${ODD} | `;
    let big = "";
    for (let i = 0; big.length < 10 * 1024 * 1024; i++) big += `${i.toString(36)} ${chunk}`;
    const args = JSON.stringify({ query: ODD });
    const file = join(db.dir, "odd-chat.json");
    await writeFile(
      file,
      JSON.stringify({
        id: "odd-chat",
        title: `odd ${ODD}`,
        messages: [
          { role: "system", content: `system ${ODD}` },
          { role: "user", content: ODD },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "dump-1", type: "function", function: { name: "dump", arguments: args } }],
          },
          { role: "tool", tool_call_id: "dump-1", content: big },
          { role: "assistant", content: `done ${ODD}` },
        ],
      }),
    );
    expect(JSON.stringify(big)).toContain("\\ud800"); // the file holds escaped lone surrogates

    const imported = await runPalimpsest(["--db", db.url, "--json", "import", file]);
    expect(imported.stderr).toBe(""); // one JSON document of 5 messages: no progress lines
    expect(imported.code).toBe(0);
    const [row] = JSON.parse(imported.stdout) as { sessionId: string; messages: number; created: boolean }[];
    expect(row).toMatchObject({ messages: 5, created: true });

    const viewed = await runPalimpsest(["--db", db.url, "--json", "view", row?.sessionId ?? ""]);
    expect(viewed.code).toBe(0);
    const view = JSON.parse(viewed.stdout) as ViewJson;
    const texts = view.messages.map((m) => m.content.map((p) => p.text).join(""));
    expect(texts[0]).toBe(`system ${ODD}`);
    expect(texts[1]).toBe(ODD);
    expect(view.messages[2]?.toolCalls?.[0]?.arguments).toBe(args);
    expect(texts[3]?.length).toBe(big.length);
    expect(texts[3] === big).toBe(true); // not toBe(big): a 10 MB diff would be unreadable
    expect(texts[4]).toBe(`done ${ODD}`);

    const openai = await runPalimpsest(["--db", db.url, "view", row?.sessionId ?? "", "--format", "openai"]);
    expect(openai.code).toBe(0);
    const body = JSON.parse(openai.stdout) as { messages: { role: string; content: unknown }[] };
    expect(body.messages[3]?.content === big).toBe(true);
  });

  it("prints progress on stderr for a large import when asked (else one summary line), and nothing on stdout but the result", {
    timeout: 120_000,
  }, async () => {
    const lines: string[] = [{ role: "system", content: "long session" }].map((m) => JSON.stringify(m));
    for (let i = 0; i < 600; i++) {
      lines.push(JSON.stringify({ role: "user", content: `question ${i} ${ODD}` }));
      lines.push(JSON.stringify({ role: "assistant", content: `answer ${i}` }));
    }
    const file = join(db.dir, "long.jsonl");
    await writeFile(file, `${lines.join("\n")}\n`);
    // stderr is not a terminal here: one summary line, no progress, unless --progress asks for it.
    const quiet = await runPalimpsest(["--db", db.url, "--json", "import", file]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("long.jsonl: 1 of 1 sessions, 1201 messages imported\n");
    const r = await runPalimpsest(["--db", db.url, "--json", "import", file, "--progress"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(quiet.stdout)).toMatchObject([{ externalId: "long", messages: 1201, created: true }]);
    const progress = r.stderr.trimEnd().split("\n");
    for (const line of progress) expect(line).toMatch(/^(parsing|writing): (\d|[1-9]0|100)% \(\d+\/\d+\)$/);
    const parsing = progress.filter((l) => l.startsWith("parsing"));
    const writing = progress.filter((l) => l.startsWith("writing"));
    expect(parsing.at(-1)).toBe("parsing: 100% (1202/1202)"); // 1201 lines and the empty one after the last newline
    expect(writing.at(-1)).toBe("writing: 100% (1201/1201)");
    expect(parsing.length).toBeGreaterThanOrEqual(5);
    expect(parsing.length).toBeLessThanOrEqual(11); // at most every 10%
    expect(writing.length).toBeLessThanOrEqual(11);
    expect(progress.indexOf(parsing.at(-1) ?? "")).toBeLessThan(progress.indexOf(writing[0] ?? ""));
  });

  it("uses --db over PALIMPSEST_DATABASE_URL over ./.palimpsest/palimpsest.db", { timeout: 120_000 }, async () => {
    const file = join(db.dir, "tiny.jsonl");
    await writeFile(file, `${JSON.stringify({ role: "user", content: "tiny" })}\n`);
    const envDb = join(db.dir, "env", "env.db");
    const flagDb = join(db.dir, "flag", "flag.db");
    const cwd = join(db.dir, "cwd");
    await mkdir(cwd);
    const withEnv = { env: { PALIMPSEST_DATABASE_URL: envDb }, cwd };
    const count = async (args: string[], options: CliOptions = withEnv) => {
      const r = await runPalimpsest(["--json", ...args, "sessions"], options);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { sessions: unknown[] }).sessions.length;
    };

    // --db wins over the environment
    const flagged = await runPalimpsest(["--db", flagDb, "import", file], withEnv);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(existsSync(flagDb)).toBe(true);
    expect(existsSync(envDb)).toBe(false);
    expect(await count(["--db", flagDb])).toBe(1);
    // a read-only command never creates the database it is pointed at
    const absent = await runPalimpsest(["sessions"], withEnv);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain(envDb);
    expect(existsSync(envDb)).toBe(false);
    expect(existsSync(join(cwd, ".palimpsest"))).toBe(false);

    // the environment wins over the default file
    expect((await runPalimpsest(["import", file, "--json"], withEnv)).code).toBe(0);
    expect(await count([])).toBe(1);
    expect(existsSync(join(cwd, ".palimpsest"))).toBe(false);

    // neither: ./.palimpsest/palimpsest.db in the working directory; :memory: is always empty
    expect((await runPalimpsest(["import", file], { cwd })).code).toBe(0);
    expect(existsSync(join(cwd, ".palimpsest", "palimpsest.db"))).toBe(true);
    expect(await count([], { cwd })).toBe(1);
    expect(await count(["--db", ":memory:"])).toBe(0);
  });
});
