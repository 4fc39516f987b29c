/**
 * The OpenAI Agents SDK Session (`@palimpsest/openai-agents`) against the SDK's own `MemorySession` and
 * against a raw insert/select of the same items (raw-entry-table.ts: one row per item, a multi-row
 * INSERT per call, a SELECT … ORDER BY seq), on the same database in the same run:
 * - `addItems` of one Runner turn (user message, function call, its result, the answer) per call, as the
 *   session grows to 1,000 items; `getItems()` and `getItems(10)` on the 1,000-item session, on the handle
 *   that wrote it and from a new process's first call (opened by id, loaded from its snapshot);
 * - a long scripted Runner run (large tool outputs, a small window): the input tokens the model is sent
 *   over the whole run with our session compacting, against MemorySession keeping everything.
 */
import { type AgentInputItem, MemorySession, type Session } from "@openai/agents-core";
import { ScriptedModel } from "@openai/agents-core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { openAgentsSession } from "@palimpsest/openai-agents";
import { POLICY_NAMES } from "@palimpsest/runtime";
import { inputItems, readFile, scripted, turnSteps } from "../test/openai-agents/agents-harness.ts";
import type { ClaudeEntry } from "./claude-entries.ts";
import { postgresRawTable, type RawEntryTable, sqliteRawTable } from "./raw-entry-table.ts";
import { markdownTable, median, ms, num, percentile, progress, ratio } from "./stats.ts";

/** Per-call times (ms) of one way of storing the items. */
export interface SessionCalls {
  /** addItems of one turn (4 items): p50 and p99 over the calls that took the session from 500 to 1,000 items. */
  addP50: number;
  addP99: number;
  /** getItems() of all 1,000 items on the writing handle: median of the repeats. */
  getAll: number;
  /** getItems(10). */
  getLast10: number;
  /** A new handle's first getItems() (ours: openAgentsSession by id, then getItems; raw: the SELECT). */
  coldGetAll?: number;
}

/** One engine's per-call figures: ours, the raw table, and MemorySession (in process, no storage). */
export interface AgentsCallsResult {
  engine: "postgres" | "sqlite";
  items: number;
  ours: SessionCalls;
  raw: SessionCalls;
  memory: SessionCalls;
}

/** The long run: input tokens sent to the model, ours compacting against MemorySession. */
export interface AgentsTokensResult {
  turns: number;
  window: number;
  policy: string;
  modelCalls: number;
  oursInputTokens: number;
  memoryInputTokens: number;
  oursLargestInput: number;
  memoryLargestInput: number;
  compactions: number;
}

/** Where to run: the store's database and the raw table's (the same server, or a SQLite file of its own). */
export interface AgentsTarget {
  engine: "postgres" | "sqlite";
  url: string;
  rawSqlitePath?: string;
}

const TURN_ITEMS = 4;

/** The items the Runner stores for turn `t`: the input, one call and its result, the answer (a 600-char output). */
function turnItems(t: number): AgentInputItem[] {
  return [
    { type: "message", role: "user", content: `question ${t}: what is in file ${t}?` },
    {
      type: "function_call",
      callId: `call_${t}`,
      name: "read_file",
      arguments: JSON.stringify({ path: `/src/${t}.ts` }),
      status: "completed",
    },
    {
      type: "function_call_result",
      name: "read_file",
      callId: `call_${t}`,
      status: "completed",
      output: { type: "text", text: `export const v${t} = ${t};\n`.repeat(24) },
    },
    {
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: `File ${t} exports v${t}.` }],
    },
  ] as AgentInputItem[];
}

const timedMs = async (fn: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

/** A way of storing the items, as the per-call bench drives it. */
interface Subject {
  add(items: AgentInputItem[]): Promise<unknown>;
  getAll(): Promise<unknown>;
  getLast10(): Promise<unknown>;
  cold?(): Promise<unknown>;
}

/** Fills `subject` to `items` items turn by turn, then reads it `repeats` times. */
async function measure(subject: Subject, items: number, repeats: number): Promise<SessionCalls> {
  const addMs: number[] = [];
  for (let t = 1; t <= items / TURN_ITEMS; t++) {
    const took = await timedMs(() => subject.add(turnItems(t)));
    if (t * TURN_ITEMS > items / 2) addMs.push(took);
  }
  const all: number[] = [];
  const last: number[] = [];
  const cold: number[] = [];
  for (let r = 0; r < repeats; r++) {
    all.push(await timedMs(() => subject.getAll()));
    last.push(await timedMs(() => subject.getLast10()));
    if (subject.cold !== undefined) cold.push(await timedMs(() => (subject.cold as () => Promise<unknown>)()));
  }
  return {
    addP50: percentile(addMs, 0.5),
    addP99: percentile(addMs, 0.99),
    getAll: median(all),
    getLast10: median(last),
    ...(cold.length === 0 ? {} : { coldGetAll: median(cold) }),
  };
}

/** Our session on `url`, a new one per run (sessions are named by the run, so runs never meet). */
async function oursSubject(url: string, sessionId: string): Promise<{ subject: Subject; close(): Promise<void> }> {
  const session = await openAgentsSession({ url, sessionId, model: "gpt-4o" });
  const opened: { close(): Promise<void> }[] = [session];
  return {
    subject: {
      add: (items) => session.addItems(items),
      getAll: () => session.getItems(),
      getLast10: () => session.getItems(10),
      async cold() {
        const fresh = await openAgentsSession({ url, sessionId });
        opened.push(fresh);
        await fresh.getItems();
      },
    },
    close: async () => {
      for (const s of opened) await s.close();
    },
  };
}

function rawSubject(raw: RawEntryTable, sessionId: string): Subject {
  const key = { projectKey: "agents-bench", sessionId };
  return {
    add: (items) => raw.append(key, items as unknown as ClaudeEntry[]),
    getAll: () => raw.load(key),
    // The raw table has no "last n" query of its own: a load and a slice, as a naive store would.
    getLast10: async () => (await raw.load(key)).slice(-10),
  };
}

function memorySubject(): Subject {
  const memory = new MemorySession();
  return {
    add: (items) => memory.addItems(items),
    getAll: () => memory.getItems(),
    getLast10: () => memory.getItems(10),
  };
}

/** addItems and getItems per call on one engine, for a 1,000-item session (200 with `quick`). */
export async function runAgentsCallsBench(target: AgentsTarget, quick: boolean): Promise<AgentsCallsResult> {
  const items = quick ? 200 : 1_000;
  const repeats = quick ? 5 : 20;
  const raw =
    target.engine === "postgres" ? await postgresRawTable(target.url) : sqliteRawTable(target.rawSqlitePath ?? "");
  try {
    // A warmup session of each first: connections, prepared statements, the tokenizer, the JIT.
    progress(`agents-session ${target.engine}: warmup`);
    const warm = await oursSubject(target.url, `agents-warmup-${Date.now()}`);
    await measure(warm.subject, 40, 2);
    await warm.close();
    await measure(rawSubject(raw, "warmup"), 40, 2);
    progress(`agents-session ${target.engine}: ${items} items, ours`);
    const ours = await oursSubject(target.url, `agents-bench-${Date.now()}`);
    const oursCalls = await measure(ours.subject, items, repeats);
    await ours.close();
    progress(`agents-session ${target.engine}: ${items} items, raw and MemorySession`);
    const rawKey = `raw-${Date.now()}`;
    const rawCalls = await measure(
      { ...rawSubject(raw, rawKey), cold: () => raw.load({ projectKey: "agents-bench", sessionId: rawKey }) },
      items,
      repeats,
    );
    const memoryCalls = await measure(memorySubject(), items, repeats);
    return { engine: target.engine, items, ours: oursCalls, raw: rawCalls, memory: memoryCalls };
  } finally {
    await raw.close();
  }
}

/** Runs `turns` turns of two large file reads on `session`; every model input. */
async function scriptedRun(session: Session, turns: number): Promise<AgentInputItem[][]> {
  const model = new ScriptedModel(Array.from({ length: turns }, (_, t) => turnSteps(t + 1, 2, "read_file")).flat());
  const { agent, runner } = scripted(model, [readFile(2_000)]);
  for (let t = 1; t <= turns; t++) {
    await runner.run(agent, `read the files of turn ${t}`, { session });
    if (t % 20 === 0) progress(`agents-session tokens: turn ${t} of ${turns}`);
  }
  return model.calls.map((c) => inputItems(c.request.input));
}

/** The input tokens of a long scripted run with our session compacting, against MemorySession. */
export async function runAgentsTokensBench(url: string, quick: boolean): Promise<AgentsTokensResult[]> {
  const turns = quick ? 30 : 100;
  const window = 16_000;
  const counter = await createTokenCounter("o200k_base");
  const tokens = (input: readonly AgentInputItem[]) =>
    input.reduce((n, item) => n + counter.countText(JSON.stringify(item)), 0);
  progress(`agents-session tokens: ${turns} turns on MemorySession`);
  const memoryInputs = await scriptedRun(new MemorySession(), turns);
  const results: AgentsTokensResult[] = [];
  for (const policy of POLICY_NAMES) {
    progress(`agents-session tokens: ${turns} turns, ${policy}`);
    const ours = await openAgentsSession({ url, model: "gpt-4o", contextWindow: window, compaction: { policy } });
    try {
      const inputs = await scriptedRun(ours, turns);
      results.push({
        turns,
        window,
        policy,
        modelCalls: inputs.length,
        oursInputTokens: inputs.reduce((n, i) => n + tokens(i), 0),
        memoryInputTokens: memoryInputs.reduce((n, i) => n + tokens(i), 0),
        oursLargestInput: Math.max(...inputs.map(tokens)),
        memoryLargestInput: Math.max(...memoryInputs.map(tokens)),
        compactions: (await ours.session.history()).length,
      });
    } finally {
      await ours.close();
    }
  }
  return results;
}

/** The markdown tables of both parts. */
export function agentsSessionTables(calls: readonly AgentsCallsResult[], runs: readonly AgentsTokensResult[]): string {
  const perCall = markdownTable(
    [
      "engine",
      "items",
      "addItems p50 / p99: ours",
      "raw INSERT",
      "MemorySession",
      "ours / raw",
      "getItems(): ours",
      "raw SELECT",
      "ours / raw",
      "getItems(10): ours",
      "raw",
      "new handle: open + getItems(): ours",
      "raw",
      "MemorySession getItems()",
    ],
    calls.map(({ engine, items, ours, raw, memory }) => [
      engine,
      num(items),
      `${ms(ours.addP50)} / ${ms(ours.addP99)}`,
      `${ms(raw.addP50)} / ${ms(raw.addP99)}`,
      `${ms(memory.addP50)} / ${ms(memory.addP99)}`,
      ratio(ours.addP50 / raw.addP50),
      ms(ours.getAll),
      ms(raw.getAll),
      ratio(ours.getAll / raw.getAll),
      ms(ours.getLast10),
      ms(raw.getLast10),
      ms(ours.coldGetAll ?? 0),
      ms(raw.coldGetAll ?? 0),
      ms(memory.getAll),
    ]),
  );
  const tokens = markdownTable(
    [
      "policy",
      "turns (model calls)",
      "window",
      "input tokens: ours",
      "MemorySession",
      "ours / MemorySession",
      "largest input: ours",
      "MemorySession",
      "compactions",
    ],
    runs.map((r) => [
      r.policy,
      `${r.turns} (${r.modelCalls})`,
      num(r.window),
      num(r.oursInputTokens),
      num(r.memoryInputTokens),
      ratio(r.oursInputTokens / r.memoryInputTokens),
      num(r.oursLargestInput),
      num(r.memoryLargestInput),
      r.compactions,
    ]),
  );
  return `${perCall}\n\n${tokens}`;
}
