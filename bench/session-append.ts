/**
 * An agent turn through the public Session: the user's message, an assistant message with a tool call,
 * provider reasoning and metadata, the tool's result and the answer, each its own `session.append` under
 * the turn's id, then `completeTurn` (with its automatic compaction check, which a 200K window never
 * triggers here). On PostgreSQL, SQLite and the in-memory store (`createMemoryStore`), so the store's own
 * cost can be told from the runtime's and core's (validation, deciding, folding). Token counting is the
 * fault suites' cheap counter: the real tokenizer's cost would hide the rest.
 */
import { type MessageInput, Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { createMemoryStore } from "@palimpsest/store/testing";
import { cheapCounter } from "../test/faults/fault-workload.ts";
import { median, percentile, progress } from "./stats.ts";

/** Where the turns run. */
export type SessionAppendEngine = "postgres" | "sqlite" | "memory";

/** One engine: turns per second (median over the reps) and one turn's time at p50 and p99 over all of them. */
export interface SessionAppendResult {
  engine: SessionAppendEngine;
  turnsPerRep: number;
  reps: number;
  turnsPerSec: number;
  p50TurnMs: number;
  p99TurnMs: number;
}

/** The four messages of turn `n`, as an agent gives them (ids left to the runtime). */
function turnMessages(n: number): MessageInput[][] {
  const call = `call-${n}`;
  return [
    [{ role: "user", content: `Turn ${n}: read src/file-${n}.ts and tell me what its main function does.` }],
    [
      {
        role: "assistant",
        content: [{ type: "text", text: "I will read the file first." }],
        toolCalls: [{ id: call, name: "read_file", arguments: JSON.stringify({ path: `src/file-${n}.ts` }) }],
        reasoning: [{ type: "thinking", thinking: "The user wants a summary of one function.", signature: "c2ln" }],
        metadata: { provider: { responseId: `resp-${n}`, usage: { input: 1200 + n, output: 40 } } },
      },
    ],
    [{ role: "tool", toolCallId: call, content: `export function main() {\n${"  step();\n".repeat(40)}}\n` }],
    [{ role: "assistant", content: `The main function of file ${n} calls step() forty times, in order.` }],
  ];
}

/** Runs `turns` turns in a fresh session of `runtime`; each turn's wall time in ms. */
export async function runTurns(runtime: Palimpsest, sessionId: string, turns: number): Promise<number[]> {
  const session = await runtime.startSession({ sessionId, model: "claude-sonnet-4", contextWindow: 200_000 });
  const times: number[] = [];
  for (let n = 0; n < turns; n++) {
    const turnId = `turn-${n}`;
    const start = performance.now();
    for (const messages of turnMessages(n)) await session.append(messages, { turnId });
    await session.completeTurn(turnId, { promptTokens: 1200 + n, completionTokens: 40 });
    times.push(performance.now() - start);
  }
  return times;
}

/** Runs the turns on one engine (`url`: a fresh database or file; the memory store needs none). */
export async function runSessionAppendBench(
  engine: SessionAppendEngine,
  url: string | undefined,
  quick: boolean,
): Promise<SessionAppendResult> {
  const store = engine === "memory" || url === undefined ? createMemoryStore() : await openEventStore(url);
  const runtime = new Palimpsest({ store, counterFor: async () => cheapCounter });
  const turns = quick ? 40 : 150;
  const reps = quick ? 3 : 7;
  const rates: number[] = [];
  const turnMs: number[] = [];
  try {
    for (let rep = -1; rep < reps; rep++) {
      const times = await runTurns(runtime, `bench-session-append-${engine}-${rep + 1}`, turns);
      if (rep < 0) continue; // warmup
      turnMs.push(...times);
      rates.push((turns / times.reduce((a, b) => a + b, 0)) * 1000);
    }
  } finally {
    await runtime.close();
  }
  const result = {
    engine,
    turnsPerRep: turns,
    reps,
    turnsPerSec: median(rates),
    p50TurnMs: percentile(turnMs, 0.5),
    p99TurnMs: percentile(turnMs, 0.99),
  };
  progress(`session-append ${engine}: ${result.turnsPerSec.toFixed(0)} turns/s, p50 ${result.p50TurnMs.toFixed(2)} ms`);
  return result;
}
