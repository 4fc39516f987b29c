import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { ROOT } from "./markdown-files.ts";

const run = promisify(execFile);
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

/** What each example must print (every line a substring of its stdout); helpers are imported, not run. */
const EXPECTED: Record<string, string[]> = {
  "quickstart.ts": ['"role":"user","content":"What is a palimpsest?"', "live tokens: "],
  "fork-and-rewrite.ts": ["fork: 3 messages, parent fork", 'parent: last reply [{"type":"text","text":"13"}], retract'],
  "library.ts": ["4 live messages", '"tool_calls":[{"id":"c1"', "3 live messages after compaction; 2 originals"],
  "errors.ts": [
    "retry returned the original: true",
    "IDEMPOTENCY_MISMATCH",
    "INVARIANT_VIOLATED tool-result-without-live-call",
    "1 live message(s)",
  ],
  "auto-compaction.ts": ["auto compaction: compacted", "mode prune, trigger auto", "3 telemetry line(s)"],
  "micro-compaction.ts": ["micro passes: 6, live markers: 1", "opted-out session compactions: 0"],
  "precompaction.ts": ["hits 1,", "compactions: precompact/auto"],
  "live-views.ts": [
    "views: 1 then 2 messages",
    "events: 2:message.appended, 3:message.appended; global: message.appended",
    "followed session.started, message.appended, message.appended; saved a checkpoint: true",
  ],
  "audit.ts": [
    "in 1 compaction(s)",
    "second tool output superseded by it: true",
    "tip true, 28 messages before, equal true",
  ],
  "handoff.ts": ["successor has 1 message(s), parent true", "completed: true"],
  "memory-store.ts": ["resumed 2 message(s); same view: true"],
  "anthropic-cache.ts": ["system cached: true; message breakpoints: 3", "request problems: 0"],
  "conversation-summarizer.ts": [
    "summarizer request: the agent's last request first: true",
    "instruction: [SUMMARY REQUEST] Stop the conversation here",
    "compactions: summary",
  ],
  "recall.ts": ["4 tool ", "FAIL login.test.ts: TimeoutError after 30000 ms", "[seq 4, tool, compacted by "],
  "postgres.ts": ["resumed 1 message(s) from PostgreSQL"],
  "ai-sdk.ts": [
    "turn 1: Sunny, 21°C.",
    "8 messages: user, assistant, tool, assistant, user, assistant, tool, assistant",
    "turn 3: Sunny, 21°C.",
    'UI stream complete: {"saved":true}',
    'UI stream cancelled: {"saved":false,"reason":"cancelled"}',
    "page reload: user (text), assistant (step-start tool-weather step-start text), user (text)",
    "compactions: auto summary",
    "one a summary: true",
    "fork after turn 1: 4 messages, parent fork",
    "handed off: 4 messages, from the fork true",
  ],
  "ai-sdk-summarizer.ts": [
    "summarizer call: the agent's last call first: true, its tools: true",
    'instruction: [{"type":"text","text":"[SUMMARY REQUEST] Stop the conversat',
    "compactions: summary",
  ],
  "openai-agents.ts": [
    "24 items in session",
    "fork: Only Oslo, then. 6 items; the parent keeps 24",
    "compaction summary: 13 items, the summary an item of role assistant",
    "popped message; cleared: 0 items, 12 messages one expand away",
    "approved from the session id alone: Deleted /tmp/report.txt. (still kept: false)",
  ],
  "encryption.ts": [
    "without the keyring: STORAGE",
    "with the keyring: read back",
    "after the erasure, its key is gone",
  ],
  "claude-agent-sdk.ts": [
    "stored under this directory's project key; main thread true",
    "8 messages through the SDK, 3 in the view",
    "compaction manual: 4 originals one expand away",
    "after delete: null, session erased: true",
  ],
};
const HELPERS = new Set(["workload.ts", "claude-code-session.ts"]);

/** Runs an example as a user would (`npx tsx examples/<name>`), in an empty working directory. */
async function runExample(name: string, env: Record<string, string> = {}): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), "palimpsest-example-"));
  try {
    const { stdout, stderr } = await run(process.execPath, [TSX, join(ROOT, "examples", name)], {
      cwd,
      env: { ...process.env, ...env },
    });
    expect(stderr).toBe("");
    return stdout;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe("examples/", () => {
  it("every example is run here (or is a helper the others import)", () => {
    const files = readdirSync(join(ROOT, "examples")).filter((f) => f.endsWith(".ts") && !HELPERS.has(f));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, lines] of Object.entries(EXPECTED).filter(([n]) => n !== "postgres.ts")) {
    it(`${name} runs and prints what the docs say`, async () => {
      const stdout = await runExample(name);
      for (const line of lines) expect(stdout).toContain(line);
    });
  }
});

const server = postgresServer();
describe.skipIf("skip" in server)("examples/postgres.ts", () => {
  let db: ScratchDatabase;
  beforeAll(async () => {
    if (!("skip" in server)) db = await createScratchDatabase(server.url, "examples");
  });
  afterAll(() => db?.drop());

  it("runs on PostgreSQL", async () => {
    const stdout = await runExample("postgres.ts", { DATABASE_URL: db.url });
    for (const line of EXPECTED["postgres.ts"] ?? []) expect(stdout).toContain(line);
  });
});
