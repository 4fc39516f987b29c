/**
 * The proof that a user can install Palimpsest: the packed packages, installed with plain npm into an empty
 * project outside the workspace (with no EBADENGINE or deprecation warning, and no provider SDK), run under
 * plain `node` from ES modules and CommonJS (library and bin) and typecheck against their .d.ts; each optional
 * SDK says what to install until it is installed beside them, then works.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProvider } from "../../packages/summarizers/test/support/fake-provider.ts";
import { anthropicMessage, chatCompletion, sectionedAnswer } from "../../packages/summarizers/test/support/sample.ts";
import {
  driverSpec,
  engineWarning,
  type InstalledProject,
  installFromTarballs,
  installWarnings,
  ROOT,
  run,
  runOk,
  userEnv,
} from "../support/installed-palimpsest.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";

/** What `palimpsest sessions --json` prints: one page of the catalogue. */
interface SessionPage {
  sessions: { sessionId: string }[];
  next: string | null;
}

/** Every scoped package of the workspace (packages/*, but the umbrella `palimpsest`), by its npm name. */
const PACKAGES = readdirSync(join(ROOT, "packages"))
  .filter((folder) => folder !== "palimpsest" && existsSync(join(ROOT, "packages", folder, "package.json")))
  .map((folder) => `@palimpsest/${folder}`);

/** A Claude Code session id for the SessionStore program. */
const SDK_SESSION = "9d3c0a52-5b8e-4f0e-9a51-2f6f3c1a7e10";

/** A short Claude Code transcript: a request, a tool call and its result, an answer. */
function claudeCodeLines(cwd: string): string {
  const base = { sessionId: SDK_SESSION, cwd, version: "2.1.0", isSidechain: false, userType: "external" };
  const lines = [
    { type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "Count the files" } },
    {
      type: "assistant",
      uuid: "a1",
      parentUuid: "u1",
      message: {
        id: "msg_1",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls | wc -l" } }],
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    },
    {
      type: "user",
      uuid: "u2",
      parentUuid: "a1",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "3" }] },
    },
    {
      type: "assistant",
      uuid: "a2",
      parentUuid: "u2",
      message: {
        id: "msg_2",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "There are 3 files." }],
        usage: { input_tokens: 20, output_tokens: 6 },
      },
    },
  ];
  return lines.map((l, i) => JSON.stringify({ ...base, ...l, timestamp: `2026-11-30T10:00:0${i}.000Z` })).join("\n");
}

/** Without the SDK installed: openSessionStore says what to install. */
const NO_SDK_PROGRAM = `
import { openSessionStore } from "palimpsest/claude-agent-sdk";
try {
  await openSessionStore({ url: ":memory:" });
  console.log("opened");
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }));
}
`;

/** The real SDK over the installed store: a local session imported into it (twice), read back through it, deleted. */
const SDK_PROGRAM = `
import { getSessionMessages, importSessionToStore } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore } from "palimpsest/claude-agent-sdk";

const [id, projectKey] = process.argv.slice(2);
const store = await openSessionStore({ url: "sdk.db" });
await importSessionToStore(id, store, { dir: process.cwd() });
await importSessionToStore(id, store, { dir: process.cwd() });
await store.flush();
const key = { projectKey, sessionId: id };
const fromDisk = await getSessionMessages(id, { dir: process.cwd() });
const fromStore = await getSessionMessages(id, { sessionStore: store, dir: process.cwd() });
const [sessionId] = await store.sessionIds(key);
const view = (await store.runtime.resume(sessionId)).view().messages;
const listed = (await store.listSessions(projectKey)).map((s) => s.sessionId);
await store.delete(key);
console.log(JSON.stringify({
  same: JSON.stringify(fromDisk) === JSON.stringify(fromStore),
  messages: fromStore.length,
  listed,
  view: view.map((m) => m.role),
  afterDelete: await store.load(key),
  erased: (await store.runtime.store.getSession(sessionId)).erasedAt !== undefined,
}));
await store.close();
`;

/** An adapter's opener called before its SDK is installed: it should say what to install. */
function noSdkProgram(subpath: string, opener: string): string {
  return `
import { ${opener} } from "palimpsest/${subpath}";
try {
  await ${opener}({ url: ":memory:" });
  console.log("opened");
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }));
}
`;
}

/** The real Runner with its scripted model over the installed session: a turn with a tool call, then (argv "next") a turn resumed from the file. */
const AGENTS_PROGRAM = `
import { Agent, Runner, setTracingDisabled, tool } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { openAgentsSession } from "palimpsest/openai-agents";
import { z } from "zod";

setTracingDisabled(true);
const first = process.argv[2] === "first";
const weather = tool({
  name: "get_weather",
  description: "The weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => "sunny in " + city,
});
const model = new ScriptedModel(
  first
    ? [[functionCall("get_weather", { city: "Oslo" }, { callId: "call_1" })], [assistantMessage("Sunny.")]]
    : [[assistantMessage("Still sunny.")]],
);
const agent = new Agent({ name: "assistant", model, tools: [weather] });
const session = await openAgentsSession({ url: "agents.db", sessionId: "install-check", model: "gpt-4.1" });
const result = await new Runner({ tracingDisabled: true }).run(agent, first ? "Weather in Oslo?" : "And now?", { session });
const items = await session.getItems();
console.log(JSON.stringify({
  output: result.finalOutput,
  stored: items.map((i) => i.type ?? "message"),
  sent: model.calls.at(-1).request.input.map((i) => i.type ?? "message"),
}));
await session.close();
`;

/** The real generateText with the AI SDK's mock model over an installed conversation: a tool loop, then (argv "next") one more turn from the file. */
const AI_PROGRAM = `
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { openConversation } from "palimpsest/ai-sdk";
import { z } from "zod";

const first = process.argv[2] === "first";
const usage = {
  inputTokens: { total: 50, noCache: 50, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const answered = prompt.at(-1)?.role === "tool";
    const content = answered
      ? [{ type: "text", text: "Sunny." }]
      : [{ type: "tool-call", toolCallId: "call-" + prompt.length, toolName: "weather", input: '{"city":"Oslo"}' }];
    return { content, finishReason: { unified: answered ? "stop" : "tool-calls", raw: undefined }, usage, warnings: [] };
  },
});
const weather = tool({
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: "sunny" }),
});
const conversation = await openConversation({ url: "chat.db", sessionId: "install-chat" });
await conversation.save([{ role: "user", content: first ? "Weather in Oslo?" : "And tomorrow?" }]);
const result = await generateText({ model, tools: { weather }, ...(await conversation.load()), stopWhen: stepCountIs(5) });
await conversation.saveResponse(result);
const { messages } = await conversation.load();
console.log(JSON.stringify({
  text: result.text,
  stored: messages.map((m) => m.role),
  sent: model.doGenerateCalls.at(-1).prompt.map((m) => m.role),
}));
await conversation.close();
`;

/**
 * AiSdkSummarizer on the app's model (the AI SDK's mock): three turns of a tool loop whose results are long,
 * then a forced compaction; the summary is what the agent loads next.
 */
const AI_SUMMARY_PROGRAM = `
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { AiSdkSummarizer, openConversation } from "palimpsest/ai-sdk";
import { z } from "zod";

const SUMMARY = ${JSON.stringify(sectionedAnswer("- Asked for the weather in Oslo, Rome and Lima: sunny."))};
const usage = {
  inputTokens: { total: 50, noCache: 50, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};
const reply = (content, unified) => ({ content, finishReason: { unified, raw: undefined }, usage, warnings: [] });
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    if (JSON.stringify(prompt.at(-1)?.content ?? "").includes("[SUMMARY REQUEST]")) return reply([{ type: "text", text: SUMMARY }], "stop");
    if (prompt.at(-1)?.role === "tool") return reply([{ type: "text", text: "Sunny." }], "stop");
    return reply([{ type: "tool-call", toolCallId: "call-" + prompt.length, toolName: "weather", input: '{"city":"Oslo"}' }], "tool-calls");
  },
});
const hours = Array.from({ length: 48 }, (_, h) => h + ":00 sunny, " + (10 + (h % 7)) + " degrees");
const tools = {
  weather: tool({
    description: "The weather in a city, hour by hour",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, hours }),
  }),
};
const summarizer = new AiSdkSummarizer({ model, conversation: { tools } });
const conversation = await openConversation({
  url: "summarized.db",
  contextWindow: 4_000,
  compaction: { policy: "summary", summarizer, auto: false },
});
for (const city of ["Oslo", "Rome", "Lima"]) {
  await conversation.save([{ role: "user", content: "Weather in " + city + "?" }]);
  await conversation.saveResponse(
    await generateText({ model, tools, ...(await conversation.load()), stopWhen: stepCountIs(5) }),
  );
}
const outcome = await conversation.compact({ force: true });
const { messages } = await conversation.load();
console.log(JSON.stringify({
  status: outcome.status,
  summarized: JSON.stringify(messages).includes("Oslo, Rome and Lima: sunny."),
  summaryCalls: model.doGenerateCalls.filter((c) => JSON.stringify(c.prompt).includes("[SUMMARY REQUEST]")).length,
}));
await conversation.close();
`;

/** The embedded default (no URL), a session, a compaction and the view, through `import ... from "palimpsest"`. */
const PROGRAM = `
import { existsSync } from "node:fs";
import { compactRange, openPalimpsest, toOpenAIMessages } from "palimpsest";

const palimpsest = await openPalimpsest();
const session = await palimpsest.startSession({ model: "gpt-4o", contextWindow: 128_000 });
await session.append({ role: "user", content: "List the files" }, { turnId: "t1" });
await session.append(
  [
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
    { role: "tool", toolCallId: "c1", content: "README.md\\nsrc/" },
    { role: "assistant", content: "Two entries: README.md and src/." },
  ],
  { turnId: "t1" },
);
const before = session.view().messages;
await compactRange(session, { fromId: before[1].id, toId: before[2].id, summary: "Listed the files." });
const resumed = await palimpsest.resume(session.id);
const after = resumed.view().messages;
console.log(JSON.stringify({
  file: existsSync(".palimpsest/palimpsest.db"),
  before: before.length,
  after: after.map((m) => m.role),
  summary: after.some((m) => JSON.stringify(m).includes("Listed the files.")),
  openai: toOpenAIMessages(after).length,
}));
await palimpsest.close();
`;

/** The same embedded-default session through `require("palimpsest")` and every package's `require`, from a .cjs file. */
const CJS_PROGRAM = `
const { openPalimpsest, toOpenAIMessages } = require("palimpsest");
const required = [
  "palimpsest", "palimpsest/live", "palimpsest/tokenizer", "palimpsest/summarizers", "palimpsest/claude-agent-sdk",
  "palimpsest/openai-agents", "palimpsest/ai-sdk", "palimpsest/testing", "@palimpsest/core", "@palimpsest/core/tokenizer", "@palimpsest/core/testing",
  "@palimpsest/projections", "@palimpsest/projections/live", "@palimpsest/store", "@palimpsest/store/testing",
  "@palimpsest/runtime", "@palimpsest/runtime/testing",
  "@palimpsest/eval", "@palimpsest/eval/testing", "@palimpsest/summarizers",
  "@palimpsest/cli", "@palimpsest/claude-agent-sdk", "@palimpsest/openai-agents", "@palimpsest/ai-sdk",
].map((name) => [name, Object.keys(require(name)).length > 0]);
(async () => {
  const palimpsest = await openPalimpsest();
  const session = await palimpsest.startSession({ model: "gpt-4o", contextWindow: 128_000 });
  await session.append({ role: "user", content: "hi" }, { turnId: "t1" });
  console.log(JSON.stringify({ required, openai: toOpenAIMessages(session.view().messages) }));
  await palimpsest.close();
})();
`;

/** Each LLM summarizer asked for its SDK (ready()): what it says when the SDK is not installed. */
const NO_PROVIDER_SDK_PROGRAM = `
import { AnthropicSummarizer, OpenAICompatibleSummarizer } from "palimpsest/summarizers";
const outcomes = [];
for (const summarizer of [new OpenAICompatibleSummarizer({ model: "m" }), new AnthropicSummarizer({ model: "m" })]) {
  try {
    await summarizer.ready();
    outcomes.push("ready");
  } catch (error) {
    outcomes.push({ code: error.code, message: error.message, path: error.details.path });
  }
}
console.log(JSON.stringify(outcomes));
`;

/** A well-formed summary, as both fake providers answer it. */
const SUMMARY = sectionedAnswer("the parser's precedence is fixed");

/** Typed use of every entry point; an option that does not exist must be a type error. */
const TYPED_PROGRAM = `
import { compactRange, openPalimpsest, type Palimpsest, type Session, toAnthropicRequest, toOpenAIMessages } from "palimpsest";
import { createTokenCounter } from "palimpsest/tokenizer";
import { OpenAICompatibleSummarizer } from "palimpsest/summarizers";
import type { Message } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { runCli } from "@palimpsest/cli";

export async function check(): Promise<number> {
  const palimpsest: Palimpsest = await openPalimpsest({ url: ":memory:" });
  const session: Session = await palimpsest.startSession({ model: "gpt-4o", contextWindow: 128_000 });
  await session.append({ role: "user", content: "hi" }, { turnId: "t1" });
  const messages: readonly Message[] = session.view().messages;
  const first = messages[0];
  if (first !== undefined) await compactRange(session, { fromId: first.id, toId: first.id, summary: "s" });
  const openai: { role: string }[] = toOpenAIMessages(messages);
  const anthropic = toAnthropicRequest(messages);
  // @ts-expect-error openPalimpsest has no \`telemetry\` option
  await openPalimpsest({ telemetry: true });
  const store = await openEventStore(":memory:");
  await store.close();
  void createTokenCounter;
  void OpenAICompatibleSummarizer;
  await palimpsest.close();
  return openai.length + anthropic.messages.length + (await runCli(["--help"]));
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
  include: ["check.ts"],
};

/** A PostgreSQL-only install: a session on the PostgreSQL URL (argv) works; a SQLite file names its driver. */
const POSTGRES_ONLY_PROGRAM = `
import { openPalimpsest } from "palimpsest";
const [url] = process.argv.slice(2);
let sqlite;
try {
  await openPalimpsest({ url: "agents.db" });
} catch (error) {
  sqlite = { code: error.code, message: error.message };
}
let postgres = null;
if (url !== undefined) {
  const palimpsest = await openPalimpsest({ url });
  const session = await palimpsest.startSession({ model: "gpt-4o" });
  await session.append({ role: "user", content: "hi" });
  postgres = (await palimpsest.resume(session.id)).view().messages.map((m) => m.content);
  await palimpsest.close();
}
console.log(JSON.stringify({ sqlite, postgres }));
`;

describe("installed from the packed tarballs with plain npm", () => {
  let project: InstalledProject;
  /** npm's stderr of adding better-sqlite3 to the PostgreSQL-only install. */
  let sqliteInstallStderr = "";
  const bin = () => join(project.dir, "node_modules/.bin/palimpsest");

  // First as a PostgreSQL user installs it (`npm install palimpsest pg`); better-sqlite3 is added after.
  beforeAll(async () => {
    project = await installFromTarballs([driverSpec("pg")]);
  }, 900_000);
  afterAll(async () => project?.dispose());

  describe("for PostgreSQL alone (palimpsest and pg)", () => {
    it("compiles nothing: better-sqlite3 is not installed, and no install script ran", () => {
      expect(existsSync(join(project.dir, "node_modules/better-sqlite3")), "better-sqlite3 is not installed").toBe(
        false,
      );
      expect(project.installStderr).not.toMatch(/gyp|prebuild/i);
    });

    it("works on a PostgreSQL URL, and a SQLite file says which package to install", async () => {
      const server = postgresServer();
      const scratch = "url" in server ? await createScratchDatabase(server.url, "install_pg_only") : undefined;
      const cwd = join(project.dir, "postgres-only");
      await mkdir(cwd);
      await writeFile(join(cwd, "program.mjs"), POSTGRES_ONLY_PROGRAM);
      try {
        const result = await runOk(process.execPath, ["program.mjs", ...(scratch ? [scratch.url] : [])], { cwd });
        expect(JSON.parse(result.stdout)).toEqual({
          sqlite: {
            code: "VALIDATION",
            message: `the SQLite database agents.db needs better-sqlite3: npm install better-sqlite3`,
          },
          postgres: scratch === undefined ? null : [[{ type: "text", text: "hi" }]],
        });
        expect(existsSync(join(cwd, "agents.db")), "no SQLite file is left behind").toBe(false);
        const cli = await run(bin(), ["import", join(ROOT, "examples/demo-session.jsonl")], { cwd });
        expect(cli.code).toBe(2);
        expect(cli.stderr).toMatch(/^error \[VALIDATION\] [^\n]*npm install better-sqlite3/);
      } finally {
        await scratch?.drop();
      }
    }, 120_000);
  });

  describe("with better-sqlite3 beside it (the embedded default)", () => {
    beforeAll(async () => {
      const added = await runOk("npm", ["install", "--no-audit", "--no-fund", driverSpec("better-sqlite3")], {
        cwd: project.dir,
      });
      sqliteInstallStderr = added.stderr;
    }, 900_000);

    it("packs one tarball per library package, each with only its build, README and LICENSE", () => {
      // One tarball per package: the umbrella, and each scoped one as pnpm names it (scope and name joined).
      const expected = ["palimpsest", ...PACKAGES.map((name) => name.replace("@", "").replace("/", "-"))];
      expect(project.tarballs).toEqual(expected.map((name) => `${name}-0.1.0.tgz`).sort());
      expect(PACKAGES).toEqual(
        expect.arrayContaining(["@palimpsest/core", "@palimpsest/store", "@palimpsest/runtime"]),
      );
      const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
      for (const name of ["palimpsest", ...PACKAGES]) {
        const dir = join(project.dir, "node_modules", name);
        const manifest = readFileSync(join(dir, "package.json"), "utf8");
        expect(manifest, name).not.toContain("workspace:");
        expect(manifest, name).not.toContain("./src/");
        expect(existsSync(join(dir, "src")), name).toBe(false);
        expect(existsSync(join(dir, "dist/index.js")), name).toBe(true);
        expect(existsSync(join(dir, "dist/index.d.ts")), name).toBe(true);
        expect(existsSync(join(dir, "dist/.tsbuildinfo")), name).toBe(false);
        expect(existsSync(join(dir, "README.md")), name).toBe(true);
        expect(readFileSync(join(dir, "LICENSE"), "utf8"), name).toBe(license);
      }
      expect(existsSync(join(project.dir, "node_modules/tsx")), "tsx is not installed").toBe(false);
      expect(existsSync(join(project.dir, "node_modules/fast-check")), "fast-check is not installed").toBe(false);
    });

    it("installs with no EBADENGINE or deprecation warning from our packages or their dependencies", () => {
      expect(installWarnings(project.installStderr)).toEqual([]);
      expect(installWarnings(sqliteInstallStderr)).toEqual([]);
    });

    it("runs a CommonJS program with plain node: require() of every package and subpath", async () => {
      const cwd = join(project.dir, "cjs");
      await mkdir(cwd);
      await writeFile(join(cwd, "program.cjs"), CJS_PROGRAM);
      const result = await runOk(process.execPath, ["program.cjs"], { cwd });
      const output = JSON.parse(result.stdout) as { required: [string, boolean][]; openai: unknown[] };
      expect(output.required.filter(([, loaded]) => !loaded)).toEqual([]);
      expect(output.openai).toEqual([{ role: "user", content: "hi" }]);
    }, 60_000);

    it("runs an ESM program with plain node on the embedded default: session, append, compact, view", async () => {
      const cwd = join(project.dir, "program");
      await mkdir(cwd);
      await writeFile(join(cwd, "program.mjs"), PROGRAM);
      const result = await runOk(process.execPath, ["program.mjs"], { cwd });
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toEqual({
        file: true,
        before: 4,
        after: ["user", "assistant", "assistant"],
        summary: true,
        openai: 3,
      });
    }, 60_000);

    // Before any provider SDK is installed: the summarizers' declarations must not need them.
    it("typechecks a strict nodenext TypeScript program against the installed declarations", async () => {
      await writeFile(join(project.dir, "check.ts"), TYPED_PROGRAM);
      await writeFile(join(project.dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
      const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
      const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project.dir });
      expect(result.stdout + result.stderr).toBe("");
      expect(result.code).toBe(0);
    }, 120_000);

    it("installs no provider SDK by default: the offline summarizer works, an LLM one names its install command, and works once it is installed", async () => {
      expect(existsSync(join(project.dir, "node_modules/openai")), "openai is not installed").toBe(false);
      expect(
        existsSync(join(project.dir, "node_modules/@anthropic-ai/sdk")),
        "@anthropic-ai/sdk is not installed",
      ).toBe(false);
      const cwd = join(project.dir, "summarizers");
      await mkdir(cwd);
      const env = { ...userEnv(), OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key" };
      // Each compaction on a session of its own: a copy of the demo file under another name imports as a new one.
      let sessions = 0;
      const compact = async (...args: string[]) => {
        const file = join(cwd, `session-${++sessions}.jsonl`);
        await copyFile(join(ROOT, "examples/demo-session.jsonl"), file);
        const imported = await runOk(bin(), ["--json", "import", file], { cwd });
        const [{ sessionId }] = JSON.parse(imported.stdout) as [{ sessionId: string }];
        return run(bin(), ["--json", "compact", sessionId, "--force", "--policy", "summary", ...args], { cwd, env });
      };
      const offline = await compact();
      expect(offline.stderr).toBe("");
      expect(JSON.parse(offline.stdout)).toMatchObject({ type: "messages.superseded" });

      await writeFile(join(cwd, "no-sdk.mjs"), NO_PROVIDER_SDK_PROGRAM);
      expect(JSON.parse((await runOk(process.execPath, ["no-sdk.mjs"], { cwd })).stdout)).toEqual([
        {
          code: "VALIDATION",
          message: "OpenAICompatibleSummarizer needs openai: npm install openai",
          path: "openai",
        },
        {
          code: "VALIDATION",
          message: "AnthropicSummarizer needs @anthropic-ai/sdk: npm install @anthropic-ai/sdk",
          path: "@anthropic-ai/sdk",
        },
      ]);
      const missing = await compact("--summarizer", "openai");
      expect(missing.code).toBe(2);
      expect(JSON.parse(missing.stderr).error).toMatchObject({
        code: "VALIDATION",
        message: expect.stringContaining("npm install openai"),
      });

      const installed = await runOk(
        "npm",
        ["install", "--no-audit", "--no-fund", "openai@6.49.0", "@anthropic-ai/sdk@1.14.0"],
        { cwd: project.dir },
      );
      expect(installWarnings(installed.stderr)).toEqual([]);
      const openai = await startFakeProvider([{ body: chatCompletion(SUMMARY) }], "/v1");
      const anthropic = await startFakeProvider([{ body: anthropicMessage(SUMMARY) }]);
      const summarize = async (name: "openai" | "anthropic", baseURL: string) => {
        const done = await compact("--summarizer", name, "--summarizer-url", baseURL);
        expect(done.stderr, name).toBe("");
        expect(JSON.parse(done.stdout), name).toMatchObject({ type: "messages.superseded", data: { mode: "summary" } });
      };
      try {
        await summarize("openai", openai.baseURL);
        await summarize("anthropic", anthropic.baseURL);
        expect(openai.received).toHaveLength(1);
        expect(anthropic.received).toHaveLength(1);
        // openai 7 (which @openai/agents-core 0.20 brings) is in the peer range too; it declares node >= 22, so on
        // Node 20 npm warns about it alone, and on 22 and later about nothing.
        const seven = await runOk("npm", ["install", "--no-audit", "--no-fund", "openai@7.60.0"], { cwd: project.dir });
        expect(installWarnings(seven.stderr)).toEqual(engineWarning(project.dir, "openai"));
        await summarize("openai", openai.baseURL);
        expect(openai.received).toHaveLength(2);
      } finally {
        await openai.close();
        await anthropic.close();
      }
    }, 300_000);

    it("runs the installed palimpsest bin (compiled, no tsx): import, sessions --json, view", async () => {
      expect(realpathSync(bin())).toMatch(/node_modules\/(palimpsest|@palimpsest\/cli)\/bin\/palimpsest\.mjs$/);
      const cwd = join(project.dir, "cli");
      await mkdir(cwd);
      await runOk(bin(), ["import", join(ROOT, "examples/demo-session.jsonl")], { cwd });
      const page = JSON.parse((await runOk(bin(), ["sessions", "--json"], { cwd })).stdout) as SessionPage;
      const { sessions } = page;
      expect(sessions).toHaveLength(1);
      const id = sessions[0]?.sessionId ?? "";
      expect(existsSync(join(cwd, ".palimpsest/palimpsest.db"))).toBe(true);
      const view = await runOk(bin(), ["view", id], { cwd });
      expect(view.stdout).toContain(id);
      expect(view.stdout).toContain("operator precedence");
      // The umbrella package's own bin runs the same CLI.
      const umbrella = join(project.dir, "node_modules/palimpsest/bin/palimpsest.mjs");
      const again = await runOk(process.execPath, [umbrella, "sessions", "--json"], { cwd });
      expect(JSON.parse(again.stdout)).toEqual(page);
    }, 120_000);

    it("mirrors a Claude Agent SDK session once the SDK is installed beside it, and says what is missing before", async () => {
      const cwd = join(project.dir, "sdk");
      await mkdir(cwd);
      await writeFile(join(cwd, "no-sdk.mjs"), NO_SDK_PROGRAM);
      const missing = JSON.parse((await runOk(process.execPath, ["no-sdk.mjs"], { cwd })).stdout);
      expect(missing.code).toBe("VALIDATION");
      expect(missing.message).toContain("npm install @anthropic-ai/claude-agent-sdk");
      // The SDK's per-platform Claude binaries are optional dependencies these functions never start.
      await runOk(
        "npm",
        ["install", "--no-audit", "--no-fund", "--omit=optional", "@anthropic-ai/claude-agent-sdk@0.3.333"],
        {
          cwd: project.dir,
        },
      );
      const config = join(cwd, "claude");
      const projectKey = cwd.replace(/[^a-zA-Z0-9]/g, "-");
      await mkdir(join(config, "projects", projectKey), { recursive: true });
      await writeFile(join(config, "projects", projectKey, `${SDK_SESSION}.jsonl`), `${claudeCodeLines(cwd)}\n`);
      await writeFile(join(cwd, "sdk.mjs"), SDK_PROGRAM);
      const env = { ...userEnv(), CLAUDE_CONFIG_DIR: config };
      const result = await runOk(process.execPath, ["sdk.mjs", SDK_SESSION, projectKey], { cwd, env });
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toEqual({
        same: true,
        messages: 4,
        listed: [SDK_SESSION],
        view: ["user", "assistant", "tool", "assistant"],
        afterDelete: null,
        erased: true,
      });
    }, 300_000);

    it("runs the OpenAI Agents SDK's Runner on an installed session once the SDK is beside it, and resumes it in a new process", async () => {
      const cwd = join(project.dir, "agents");
      await mkdir(cwd);
      await writeFile(join(cwd, "no-agents.mjs"), noSdkProgram("openai-agents", "openAgentsSession"));
      const missing = JSON.parse((await runOk(process.execPath, ["no-agents.mjs"], { cwd })).stdout);
      expect(missing.code).toBe("VALIDATION");
      expect(missing.message).toContain("npm install @openai/agents-core");
      // @openai/agents-core 0.20 depends on openai 7, which declares node >= 22: on Node 20 npm warns about it alone.
      const installed = await runOk(
        "npm",
        ["install", "--no-audit", "--no-fund", "@openai/agents-core@0.20.0", "zod@4.6.7"],
        { cwd: project.dir },
      );
      expect(installWarnings(installed.stderr).filter((w) => !/^EBADENGINE openai@7\./.test(w))).toEqual([]);
      await writeFile(join(cwd, "agents.mjs"), AGENTS_PROGRAM);
      const turn = (phase: string) => runOk(process.execPath, ["agents.mjs", phase], { cwd });
      const first = await turn("first");
      expect(first.stderr).toBe("");
      expect(JSON.parse(first.stdout)).toEqual({
        output: "Sunny.",
        stored: ["message", "function_call", "function_call_result", "message"],
        sent: ["message", "function_call", "function_call_result"],
      });
      const next = JSON.parse((await turn("next")).stdout);
      expect(next).toEqual({
        output: "Still sunny.",
        stored: ["message", "function_call", "function_call_result", "message", "message", "message"],
        sent: ["message", "function_call", "function_call_result", "message", "message"],
      });
    }, 300_000);

    it("saves and continues an AI SDK tool loop on an installed conversation once ai is beside it, and compacts it with AiSdkSummarizer", async () => {
      const cwd = join(project.dir, "ai");
      await mkdir(cwd);
      await writeFile(join(cwd, "no-ai.mjs"), noSdkProgram("ai-sdk", "openConversation"));
      const missing = JSON.parse((await runOk(process.execPath, ["no-ai.mjs"], { cwd })).stdout);
      expect(missing).toMatchObject({ code: "VALIDATION", message: expect.stringContaining("npm install ai") });
      // ai and its @ai-sdk packages declare node >= 22: npm warns (EBADENGINE) about them on Node 20 and installs them.
      const installed = await runOk("npm", ["install", "--no-audit", "--no-fund", "ai@7.0.173", "zod@4.6.7"], {
        cwd: project.dir,
      });
      const others = installWarnings(installed.stderr).filter(
        (w) => !/^EBADENGINE (ai@7\.|@ai-sdk\/|openai@7\.)/.test(w),
      );
      expect(others).toEqual([]);
      await writeFile(join(cwd, "ai.mjs"), AI_PROGRAM);
      const turn = async (phase: string) =>
        JSON.parse((await runOk(process.execPath, ["ai.mjs", phase], { cwd })).stdout);
      expect(await turn("first")).toEqual({
        text: "Sunny.",
        stored: ["user", "assistant", "tool", "assistant"],
        sent: ["user", "assistant", "tool"],
      });
      expect(await turn("next")).toEqual({
        text: "Sunny.",
        stored: ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"],
        sent: ["user", "assistant", "tool", "assistant", "user", "assistant", "tool"],
      });
      await writeFile(join(cwd, "summary.mjs"), AI_SUMMARY_PROGRAM);
      expect(JSON.parse((await runOk(process.execPath, ["summary.mjs"], { cwd })).stdout)).toEqual({
        status: "compacted",
        summarized: true,
        summaryCalls: 1,
      });
    }, 300_000);

    it("prints an error of the installed bin as the Palimpsest error alone on stderr", async () => {
      const cwd = join(project.dir, "cli");
      const result = await run(bin(), ["view", "no-such-session"], { cwd });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^error \[NOT_FOUND\] [^\n]*no-such-session[^\n]*\n$/);
    }, 60_000);
  });
});
