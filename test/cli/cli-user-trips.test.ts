import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Message } from "@palimpsest/core";
import {
  type AnthropicRequest,
  checkAnthropicRequest,
  checkOpenAIRequest,
  type OpenAIMessage,
  toAnthropicRequest,
  toOpenAIMessages,
} from "@palimpsest/projections";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../packages/cli/src/main.ts";
import { type CliDatabase, jsonError, ROOT, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

/** An OpenAI chat transcript of `steps` exchanges (a user request, a shell call, its listing, a reply) by `model`. */
function chatTranscript(id: string, model: string | undefined, steps: number): string {
  const messages: unknown[] = [{ role: "system", content: "You are a helpful agent." }];
  for (let i = 0; i < steps; i++) {
    messages.push(
      { role: "user", content: `step ${i}: list the build folder and tell me what is in it` },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "shell", arguments: '{"cmd":"ls build"}' } }],
      },
      { role: "tool", tool_call_id: `c${i}`, content: Array.from({ length: 12 }, (_, j) => `file${j}.txt`).join(" ") },
      { role: "assistant", content: `done ${i}` },
    );
  }
  return JSON.stringify({ id, ...(model === undefined ? {} : { model }), messages });
}

// One SQLite file for the whole file: each test imports sessions of its own.
let db: CliDatabase;
beforeAll(async () => {
  db = await sqliteCliDatabase();
});
afterAll(async () => {
  await db.dispose();
});
const cli = (...args: string[]) => runPalimpsest(["--db", db.url, ...args]);

describe("what users trip on: profiles and compactions that grow (SQLite file)", () => {
  const fixture = async (name: string, text: string): Promise<string> => {
    const file = join(db.dir, name);
    await writeFile(file, text);
    return file;
  };

  it("compacts, replays and evaluates a gpt-4o session under the openai profile and says why", async () => {
    const file = await fixture("gpt.json", chatTranscript("gpt-session", "gpt-4o", 30));
    expect((await cli("import", file)).code).toBe(0);
    const compacted = await cli("compact", "gpt-session", "--force", "--context-window", "4000");
    expect(compacted.stderr).toBe("");
    expect(compacted.stdout).toContain("profile: openai (from model gpt-4o)");
    const event = JSON.parse((await cli("--json", "history", "gpt-session")).stdout) as {
      producer: { profile: string };
    }[];
    expect(event[0]?.producer.profile).toBe("openai");

    const given = await cli("compact", "gpt-session", "--force", "--profile", "local", "--context-window", "4000");
    expect(given.stdout).toContain("profile: local (given)");

    const replay = await cli("replay", file, "--context-window", "4000");
    expect(replay.stdout).toContain("profile: openai (from model gpt-4o)");
    const evaluated = await cli("eval", file, "--context-window", "4000");
    expect(evaluated.stdout).toContain("profile: openai (from model gpt-4o)");
    const byFormat = await cli("eval", await fixture("anon.json", chatTranscript("anon", undefined, 3)));
    expect(byFormat.stdout).toContain("profile: openai (from the openai format)");
  });

  it("refuses a forced compaction that would grow the view, writes it only with --allow-growth", async () => {
    const file = await fixture("small.json", chatTranscript("small", "gpt-4o", 6));
    expect((await cli("import", file)).code).toBe(0);
    const args = ["compact", "small", "--force", "--policy", "summary", "--context-window", "1000"];
    const refused = await cli("--json", ...args);
    expect(refused.code).toBe(1);
    const error = jsonError(refused);
    expect(error.code).toBe("INVARIANT_VIOLATED");
    const details = error.details as { rule: string; tokensBefore: number; tokensAfter: number };
    expect(details.rule).toBe("compaction-grows-view");
    expect(details.tokensAfter).toBeGreaterThanOrEqual(details.tokensBefore);
    expect(error.message).toContain("--allow-growth");
    expect((await cli("history", "small")).stdout).toContain("no compactions");

    const text = await cli(...args, "--allow-growth");
    expect(text.stdout).toContain(`(grew by ${details.tokensAfter - details.tokensBefore})`);
    const allowed = await cli("--json", "history", "small");
    expect(allowed.code).toBe(0);
    const [written] = JSON.parse(allowed.stdout) as { stats: { tokensBefore: number; tokensAfter: number } }[];
    expect(written?.stats).toMatchObject({ tokensBefore: details.tokensBefore, tokensAfter: details.tokensAfter });
  });
});

describe("what users trip on: replay's progress (SQLite file)", () => {
  it("replay prints progress lines on a terminal or with --progress, none into a file", async () => {
    const file = join(db.dir, "long.json");
    await writeFile(file, chatTranscript("long", "gpt-4o", 60)); // 120 requests: progress every 10%
    const progressLines = (stderr: string) =>
      stderr.split("\n").filter((l) => /^replay summary session 1\/1: /.test(l));
    const piped = await cli("replay", file, "--context-window", "16000");
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe("");
    const asked = await cli("replay", file, "--context-window", "16000", "--progress");
    expect(progressLines(asked.stderr).length).toBeGreaterThanOrEqual(10);
    expect(asked.stdout).toContain("profile: openai");
    const stderr: string[] = [];
    const code = await runCli(["--db", db.url, "replay", file, "--context-window", "16000"], {
      stdout: () => {},
      stderr: (text) => stderr.push(text),
      env: {},
      cwd: ROOT,
      stderrIsTTY: true,
    });
    expect(code).toBe(0);
    expect(progressLines(stderr.join("")).length).toBeGreaterThanOrEqual(10);
  });
});

describe("what users trip on: import's errors and output (SQLite file)", () => {
  it("a folder is a directory, not a missing file, and the error names the transcripts in it", async () => {
    const folder = join(db.dir, "transcripts");
    await mkdir(folder);
    await writeFile(join(folder, "a.jsonl"), "{}\n");
    const r = await cli("--json", "import", folder);
    expect(r.code).toBe(2);
    const error = jsonError(r);
    expect(error.code).toBe("VALIDATION");
    expect(error.message).toBe(`${folder} is a directory: give one transcript file (a .jsonl, .json or .traj file)`);
    expect(JSON.stringify(error.details)).toContain(join(folder, "a.jsonl"));
    expect(r.stderr).not.toContain("EISDIR");
  });

  it("an unrecognized file says so once, lists the formats and points at --format", async () => {
    const file = join(db.dir, "weird.jsonl");
    await writeFile(file, '{"foo":1}\n');
    const r = await cli("import", file);
    expect(r.code).toBe(2);
    expect(r.stderr.match(/unrecognized transcript format/g)).toHaveLength(1);
    expect(r.stderr).toContain("openai, claude-code, openhands, swe-agent, mini-swe-agent, tau-bench");
    expect(r.stderr).toContain("--format <format>");
  });

  it("a JSON array forced as a JSON-lines format says it is one document and which format it looks like", async () => {
    const file = join(db.dir, "chat.json");
    await writeFile(file, JSON.stringify(JSON.parse(chatTranscript("chat", "gpt-4o", 2)).messages, null, 2));
    for (const format of ["claude-code", "openhands"]) {
      const r = await cli("--json", "import", file, "--format", format);
      expect(r.code).toBe(2);
      const error = jsonError(r);
      expect(error.message).toContain(`not JSON lines: --format ${format} expects one JSON object per line`);
      expect(error.message).not.toContain("malformed JSON");
      expect(JSON.stringify(error.details)).toContain("it looks like openai: try --format openai");
    }
    expect((await cli("import", file)).code).toBe(0);
  });

  it("a mini-swe-agent run imports and replays as it is, its closing exit message left out", async () => {
    const messages: unknown[] = [
      { role: "system", content: "You are a helpful assistant that can interact with a computer." },
      { role: "user", content: "<pr_description>the lexer drops tabs</pr_description>" },
    ];
    for (let i = 0; i < 3; i++) {
      const call = `call_${i}`;
      const command = i === 2 ? "git diff" : `grep -n tab src/lexer_${i}.py`;
      messages.push(
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: call, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } },
          ],
          extra: {
            response: { usage: { prompt_tokens: 900 + 300 * i, completion_tokens: 40 } },
            timestamp: 1_770_000_000 + 30 * i,
          },
        },
        {
          role: "tool",
          tool_call_id: call,
          content: `<returncode>0</returncode> line ${i}`,
          extra: { timestamp: 1_770_000_005 + 30 * i },
        },
      );
    }
    messages.push({ role: "exit", content: "diff --git a/src/lexer.py", extra: { exit_status: "Submitted" } });
    const run = {
      info: { config: { model: { model_name: "openai/gpt-4o" } } },
      messages,
      trajectory_format: "mini-swe-agent-1.1",
      instance_id: "acme__lexer-7",
    };
    const file = join(db.dir, "acme__lexer-7.traj.json");
    await writeFile(file, JSON.stringify(run, null, 2));
    const imported = await cli("--json", "import", file);
    expect(imported.code).toBe(0);
    const [session] = JSON.parse(imported.stdout) as { sessionId: string; externalId: string; messages: number }[];
    expect(session).toMatchObject({ externalId: "acme__lexer-7", messages: 8 });
    const view = JSON.parse((await cli("--json", "view", session?.sessionId ?? "")).stdout) as {
      messages: { role: string }[];
    };
    expect(view.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
    const replay = await cli("replay", file, "--compare", "none,summary");
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain("profile: openai (from model openai/gpt-4o)");
  });
});

/** An OpenHands instance of one line: a bash call answered, then the agent's `finish` call, which nothing answers. */
function openHandsInstance(): string {
  const call = (id: string, name: string, args: object) => ({
    id,
    type: "function",
    function: { name, arguments: JSON.stringify(args) },
  });
  const response = (id: string, content: string | null, calls: object[]) => ({
    id,
    model: "llama",
    choices: [{ message: { role: "assistant", content, tool_calls: calls } }],
  });
  const history = [
    { id: 0, source: "agent", action: "system", message: "sys", args: { content: "You are OpenHands." } },
    { id: 1, source: "user", action: "message", message: "Fix the bug.", args: { content: "Fix the bug." } },
    {
      id: 2,
      source: "agent",
      action: "run",
      tool_call_metadata: {
        tool_call_id: "t1",
        function_name: "execute_bash",
        model_response: response("gen-1", "Looking.", [call("t1", "execute_bash", { command: "ls" })]),
      },
    },
    {
      id: 3,
      source: "agent",
      observation: "run",
      content: "a.c",
      tool_call_metadata: { tool_call_id: "t1", function_name: "execute_bash" },
    },
    {
      id: 4,
      source: "agent",
      action: "finish",
      tool_call_metadata: {
        tool_call_id: "t2",
        function_name: "finish",
        model_response: response("gen-2", null, [call("t2", "finish", { message: "done" })]),
      },
    },
  ];
  return `${JSON.stringify({ instance_id: "org__repo-2", metadata: { llm_config: { model: "openai/llama" } }, history })}\n`;
}

describe("what users trip on: a finished OpenHands session exported as a request body (SQLite file)", () => {
  it("leaves out the unanswered finish call, says so on stderr, and every tool call left is answered", async () => {
    const file = join(db.dir, "output.jsonl");
    await writeFile(file, openHandsInstance());
    expect((await cli("import", file)).code).toBe(0);
    const view = JSON.parse((await cli("--json", "view", "org__repo-2")).stdout) as { messages: Message[] };
    // The view itself ends with the call: exported whole, it breaks the providers' rule.
    expect(checkAnthropicRequest(toAnthropicRequest(view.messages), { allowInFlight: false })).not.toEqual([]);
    expect(checkOpenAIRequest(toOpenAIMessages(view.messages), { allowInFlight: false })).not.toEqual([]);

    const anthropic = await cli("view", "org__repo-2", "--format", "anthropic");
    expect(anthropic.code).toBe(0);
    expect(anthropic.stderr).toContain("unanswered tool call finish (t2)");
    const body = JSON.parse(anthropic.stdout) as AnthropicRequest;
    expect(checkAnthropicRequest(body, { allowInFlight: false })).toEqual([]);
    expect(JSON.stringify(body)).toContain("execute_bash");

    const openai = await cli("view", "org__repo-2", "--format", "openai");
    expect(openai.stderr).toContain("unanswered tool call finish (t2)");
    const chat = JSON.parse(openai.stdout) as { messages: OpenAIMessage[] };
    expect(checkOpenAIRequest(chat.messages, { allowInFlight: false })).toEqual([]);
  });
});

/** An OpenHands instance of `steps` bash calls with long outputs, timed in 2024: its prompt cache is long cold. */
function longOpenHandsInstance(id: string, steps: number): string {
  const at = (n: number) => new Date(Date.UTC(2024, 0, 1, 12, 0, n)).toISOString();
  const history: unknown[] = [
    { id: 0, timestamp: at(0), source: "agent", action: "system", args: { content: "You are OpenHands." } },
    { id: 1, timestamp: at(1), source: "user", action: "message", args: { content: "Fix the failing build." } },
  ];
  for (let i = 0; i < steps; i++) {
    const callId = `b${i}`;
    const output = Array.from({ length: 300 }, (_, j) => `src/module${(i * 31 + j) % 211}.c`).join(" ");
    history.push(
      {
        id: 2 + 2 * i,
        timestamp: at(2 + 2 * i),
        source: "agent",
        action: "run",
        tool_call_metadata: {
          tool_call_id: callId,
          function_name: "execute_bash",
          model_response: {
            id: `gen-${i}`,
            choices: [{ message: { role: "assistant", content: `Step ${i}.`, tool_calls: [bash(callId)] } }],
            usage: { prompt_tokens: 1_000 * (i + 1), completion_tokens: 20 }, // closes a turn: its time is the last request's
          },
        },
      },
      {
        id: 3 + 2 * i,
        timestamp: at(3 + 2 * i),
        source: "agent",
        observation: "run",
        content: output,
        tool_call_metadata: { tool_call_id: callId, function_name: "execute_bash" },
      },
    );
  }
  return `${JSON.stringify({ instance_id: id, metadata: { llm_config: { model: "claude-sonnet-4" } }, history })}\n`;
}

function bash(id: string): object {
  return { id, type: "function", function: { name: "execute_bash", arguments: '{"command":"ls -R src"}' } };
}

describe("what users trip on: cost-optimal's explanation of a credit", () => {
  it("words a compaction cheaper than nothing as a saving, never as a negative cost", async () => {
    const file = join(db.dir, "long-output.jsonl");
    await writeFile(file, longOpenHandsInstance("org__repo-3", 40));
    expect((await cli("import", file)).code).toBe(0);
    const r = await cli("compact", "org__repo-3", "--policy", "cost-optimal", "--force");
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("cache cold");
    expect(r.stdout).toMatch(/compacting saves \$\d+\.\d{5}\/turn \(/);
    expect(r.stdout).not.toContain("$-");
  });
});
