import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonError, ROOT, runPalimpsest } from "./harness.ts";

const DEMO = join(ROOT, "examples/demo-session.jsonl");

describe("palimpsest --db: what a database URL may be, and databases that are absent or damaged", () => {
  let dir: string;
  const cli = (...args: string[]) => runPalimpsest(["--json", ...args], { cwd: dir });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "palimpsest-db-url-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("refuses an unknown scheme and never creates a database for a read-only command", async () => {
    const missing = join(dir, "nonexistent", "dir", "x.db");
    const [mysql, absent, watched] = await Promise.all([
      cli("--db", "mysql://x/y", "import", DEMO),
      cli("--db", missing, "sessions"),
      cli("--db", missing, "audit", "totals"),
    ]);
    expect(mysql.code).toBe(2);
    expect(jsonError(mysql)).toMatchObject({ code: "VALIDATION" });
    expect(jsonError(mysql).message).toContain("mysql");
    for (const result of [absent, watched]) {
      expect(result.code).toBe(1);
      expect(jsonError(result)).toMatchObject({ code: "NOT_FOUND", details: { id: missing } });
      expect(jsonError(result).message).toContain(
        "`palimpsest import <transcript>` creates it, or name another with --db",
      );
    }
    expect(readdirSync(dir)).toEqual([]); // no ./mysql:/, no nonexistent/dir
  });

  it("reads file: URLs as SQLite paths", async () => {
    const imported = await cli("--db", "file:./x.db", "import", DEMO);
    expect(imported.code, imported.stderr).toBe(0);
    expect(existsSync(join(dir, "x.db"))).toBe(true);
    const listed = await cli("--db", `file://${join(dir, "x.db")}`, "sessions");
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  it("serves the tenant --tenant or PALIMPSEST_TENANT names: each sees its own imports only", async () => {
    const db = join(dir, "tenants.db");
    const imported = await cli("--db", db, "--tenant", "acme", "import", DEMO);
    expect(imported.code, imported.stderr).toBe(0);
    const sessionsOf = async (args: string[], env: Record<string, string> = {}) => {
      const listed = await runPalimpsest(["--json", "--db", db, ...args, "sessions"], { cwd: dir, env });
      expect(listed.code, listed.stderr).toBe(0);
      return (JSON.parse(listed.stdout) as { sessions: unknown[] }).sessions;
    };
    expect(await sessionsOf(["--tenant", "acme"])).toHaveLength(1);
    expect(await sessionsOf([], { PALIMPSEST_TENANT: "acme" })).toHaveLength(1);
    expect(await sessionsOf(["--tenant", "globex"], { PALIMPSEST_TENANT: "acme" })).toEqual([]);
    expect(await sessionsOf([])).toEqual([]); // the default tenant
    const empty = await runPalimpsest(["--db", db, "--tenant", "globex", "sessions"], { cwd: dir });
    expect(empty.stdout).toContain("no sessions yet in tenant globex");
    const bad = await cli("--db", db, "--tenant", "a".repeat(101), "sessions");
    expect(bad.code).toBe(2);
    expect(jsonError(bad)).toMatchObject({ code: "VALIDATION", details: { path: "tenant" } });
  });

  it("encrypts with the keyring --keyring or PALIMPSEST_KEYRING names, under PALIMPSEST_MASTER_KEY", async () => {
    const db = join(dir, "encrypted.db");
    const keys = { PALIMPSEST_KEYRING: join(dir, "keys"), PALIMPSEST_MASTER_KEY: randomBytes(32).toString("base64") };
    const run = (args: string[], env: Record<string, string> = keys) =>
      runPalimpsest(["--json", "--db", db, ...args], { cwd: dir, env });
    const imported = await run(["import", DEMO]);
    expect(imported.code, imported.stderr).toBe(0);
    const { sessions } = JSON.parse((await run(["sessions"])).stdout) as { sessions: { sessionId: string }[] };
    const id = sessions[0]?.sessionId ?? "";
    const view = await run(["view", id]);
    expect(view.code, view.stderr).toBe(0);
    const text = JSON.stringify(JSON.parse(view.stdout));
    expect(text.length).toBeGreaterThan(200);
    // The file holds none of what the view shows; without the keyring the content is refused, not shown.
    const said = (JSON.parse(view.stdout) as { messages: { content: { text?: string }[] }[] }).messages
      .flatMap((m) => m.content.map((c) => c.text ?? ""))
      .find((t) => t.length > 20);
    expect(said).toBeDefined();
    expect((await readFile(db)).includes(said ?? "")).toBe(false);
    const bare = await run(["view", id], {});
    expect(bare.code).toBe(1);
    expect(jsonError(bare)).toMatchObject({ code: "STORAGE" });
    expect(jsonError(bare).message).toContain("keyring");
    const flag = await run(["--keyring", keys.PALIMPSEST_KEYRING, "view", id], {
      PALIMPSEST_MASTER_KEY: keys.PALIMPSEST_MASTER_KEY,
    });
    expect(flag.code, flag.stderr).toBe(0);
    const noKey = await run(["view", id], { PALIMPSEST_KEYRING: keys.PALIMPSEST_KEYRING });
    expect(noKey.code).toBe(2);
    expect(jsonError(noKey)).toMatchObject({ code: "VALIDATION", details: { path: "PALIMPSEST_MASTER_KEY" } });
  });

  it("reports a damaged database, naming the file, on reads and writes alike", async () => {
    const garbage = join(dir, "garbage.db");
    await writeFile(garbage, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)));
    const truncated = join(dir, "truncated.db");
    await copyFile(join(dir, "x.db"), truncated); // the whole database of the test above, checkpointed on close
    const { size } = statSync(truncated);
    await truncate(truncated, Math.floor(size / 2));
    const before = await readFile(truncated);
    const results = await Promise.all([
      cli("--db", garbage, "sessions"),
      cli("--db", garbage, "import", DEMO),
      cli("--db", truncated, "import", DEMO),
      cli("--db", truncated, "view", "anything"),
    ]);
    for (const [i, result] of results.entries()) {
      const file = i < 2 ? garbage : truncated;
      expect(result.code, result.stderr).toBe(1);
      expect(jsonError(result)).toMatchObject({ code: "STORAGE" });
      expect(jsonError(result).message).toContain(file);
    }
    expect((await readFile(truncated)).equals(before)).toBe(true); // nothing was written to it
  });
});
