/**
 * A reader that stops early (`palimpsest view … | head`) closes the CLI's stdout: the real bin, in a process
 * of its own, drops the rest of its output and ends with its own status, no EPIPE stack trace on stderr.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, runPalimpsest, sqliteCliDatabase, startPalimpsest } from "./harness.ts";

/** An OpenAI chat transcript whose view is about 1.2 MB: far more than a pipe holds (64 KB here). */
function bigTranscript(): string {
  const messages: unknown[] = [{ role: "user", content: "list every build log" }];
  for (let i = 0; i < 40; i++) {
    const log = Array.from({ length: 400 }, (_, l) => `step ${i}.${l}: compiled module_${l}.ts in ${l % 97} ms`);
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "cat", arguments: `{"n":${i}}` } }],
      },
      { role: "tool", tool_call_id: `c${i}`, content: log.join("\n") },
    );
  }
  messages.push({ role: "assistant", content: "done" });
  return JSON.stringify({ id: "big-logs", messages });
}

describe("palimpsest writing into a pipe its reader closed (SQLite file)", () => {
  let db: CliDatabase;
  let sessionId: string;
  beforeAll(async () => {
    db = await sqliteCliDatabase();
    const file = join(db.dir, "big-logs.json");
    await writeFile(file, bigTranscript());
    const imported = await runPalimpsest(["--db", db.url, "--json", "import", file]);
    sessionId = (JSON.parse(imported.stdout) as { sessionId: string }[])[0]?.sessionId ?? "";
  });
  afterAll(() => db.dispose());

  it("drops the output it cannot write and exits 0 without a stack trace", async () => {
    const running = startPalimpsest(["--db", db.url, "view", sessionId, "--format", "anthropic"]);
    // The reader takes the first chunk and closes the pipe, as `head -c 400` does.
    running.child.stdout?.once("data", () => running.child.stdout?.destroy());
    const result = await running.result;
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(result.code).toBe(0);
  });
});
