/**
 * The SDK adapters under kill -9, on a real SQLite file and on PostgreSQL: a child process writes an
 * OpenAI Agents SDK session (Runner-like turns through addItems, pops, keyed history transactions) or an
 * AI SDK conversation (the user's input, then the response) and is SIGKILLed while an operation is in
 * flight. A fresh process must then read exactly what the acknowledged operations wrote, plus the
 * killed one whole or not at all (a conversation turn may stop between its two saves: the input alone),
 * and a transaction retried under its operation id after the crash must land once.
 */
import { join } from "node:path";
import { type AgentInputItem, MemorySession } from "@openai/agents-core";
import { openConversation } from "@palimpsest/ai-sdk";
import { openAgentsSession } from "@palimpsest/openai-agents";
import type { ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccepted } from "../ai-sdk/request-checks.ts";
import { type AdapterOperation, adapterTurn, conversationTurn } from "./adapter-operations.ts";
import type { AdapterRequest } from "./adapter-worker.ts";
import { faultDatabases } from "./fault-databases.ts";
import { Worker, type WorkerScript } from "./fault-process.ts";
import { FaultRandom } from "./fault-random.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";

const seed = faultSeed();
const ROUNDS = faultCount(6, 60);
const script: WorkerScript = {
  path: join(import.meta.dirname, "adapter-worker.ts"),
  execArgv: ["--import", "tsx"],
  dispose: async () => {},
};

/** The agents plan: a turn (every third one a keyed transaction), a pop after every fourth. */
function agentsPlan(turns: number): AdapterOperation[] {
  return Array.from({ length: turns }, (_, i): AdapterOperation[] => {
    const turn = i + 1;
    const write: AdapterOperation = turn % 3 === 0 ? { op: "transaction", turn } : { op: "turn", turn };
    return turn % 4 === 0 ? [write, { op: "pop" }] : [write];
  }).flat();
}

/** What MemorySession holds after `op` on `items`: the SDK's own answer to what the session should hold. */
async function agentsAfter(items: readonly AgentInputItem[], op: AdapterOperation): Promise<AgentInputItem[]> {
  const memory = new MemorySession();
  await memory.addItems([...items]);
  if (op.op === "pop") await memory.popItem();
  else await memory.addItems(adapterTurn(op.turn) as AgentInputItem[]);
  return memory.getItems();
}

/** The conversation states `op` may leave after `messages`: untouched, its input alone, or whole. */
function conversationCandidates(messages: readonly ModelMessage[], op: AdapterOperation): ModelMessage[][] {
  if (op.op !== "turn") throw new Error("a conversation plan holds turns only");
  const { input, response } = conversationTurn(op.turn);
  return [[...messages], [...messages, ...input], [...messages, ...input, ...response]];
}

/**
 * Runs `ops[from..]` in a new worker until `killAt` has begun, then SIGKILLs it `killDelayMs` later (the
 * fault schedule: 0 kills it as the write starts, a few ms inside or after it), or runs to the end.
 */
async function runWorker(
  open: Extract<AdapterRequest, { t: "open" }>,
  ops: readonly AdapterOperation[],
  from: number,
  killAt: number | undefined,
  killDelayMs = 0,
): Promise<void> {
  const worker = new Worker(script);
  const expect1 = async (t: string) => {
    const message = await worker.next();
    if (message?.t !== t) throw new Error(`worker said ${JSON.stringify(message)}, expected ${t}\n${worker.stderr}`);
  };
  try {
    await worker.send(open);
    await expect1("opened");
    for (let n = from; n < ops.length; n++) {
      await worker.send({ t: "run", n, operation: ops[n] as AdapterOperation } satisfies AdapterRequest);
      await expect1("begin");
      if (n === killAt) {
        if (killDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, killDelayMs));
        await worker.kill();
        return;
      }
      await expect1("end");
    }
  } finally {
    worker.child.kill("SIGKILL");
    await worker.exited;
  }
}

for (const database of faultDatabases("adapter_kills")) {
  describe.skipIf(database.skip !== undefined)(`SDK adapters killed mid-write (${database.name})`, () => {
    let url: string;
    beforeAll(async () => {
      url = await database.create();
    });
    afterAll(() => database.dispose());

    it(`an agents session keeps every acknowledged write, the killed one whole or not at all (seed ${seed})`, async () => {
      const random = new FaultRandom(seed);
      const ops = agentsPlan(ROUNDS * 2);
      const sessionId = `agents-kills-${seed}-${Date.now()}`;
      const open = { t: "open", url, kind: "agents", sessionId } as const;
      let expected: AgentInputItem[] = [];
      let next = 0;
      const read = async () => {
        const session = await openAgentsSession({ url, sessionId });
        try {
          return await session.getItems();
        } finally {
          await session.close();
        }
      };
      for (let round = 0; round < ROUNDS && next < ops.length; round++) {
        const killAt = random.int(next, Math.min(next + 3, ops.length - 1));
        await runWorker(open, ops, next, killAt, random.int(0, 6));
        const op = ops[killAt] as AdapterOperation;
        for (let n = next; n < killAt; n++) expected = await agentsAfter(expected, ops[n] as AdapterOperation);
        const after = await agentsAfter(expected, op);
        const stored = await read();
        const landed = JSON.stringify(stored) === JSON.stringify(after);
        if (!landed) expect(stored, `round ${round}: op ${killAt} ${op.op} half-written`).toEqual(expected);
        if (landed && op.op !== "transaction") {
          expected = after;
          next = killAt + 1;
        } else next = killAt; // run again: not landed, or a keyed transaction, which must then land once
      }
      await runWorker(open, ops, next, undefined);
      for (let n = next; n < ops.length; n++) expected = await agentsAfter(expected, ops[n] as AdapterOperation);
      expect(await read()).toEqual(expected);
    }, 600_000);

    it(`a conversation keeps every acknowledged turn, the killed one whole, its input alone, or nothing (seed ${seed})`, async () => {
      const random = new FaultRandom(seed + 1);
      const ops: AdapterOperation[] = Array.from({ length: ROUNDS * 2 }, (_, i) => ({ op: "turn", turn: i + 1 }));
      const sessionId = `ai-kills-${seed}-${Date.now()}`;
      const open = { t: "open", url, kind: "ai", sessionId } as const;
      let expected: ModelMessage[] = [];
      let next = 0;
      const read = async () => {
        const conversation = await openConversation({ url, sessionId, compaction: { auto: false } });
        try {
          return await conversation.load();
        } finally {
          await conversation.close();
        }
      };
      for (let round = 0; round < ROUNDS && next < ops.length; round++) {
        const killAt = random.int(next, Math.min(next + 3, ops.length - 1));
        await runWorker(open, ops, next, killAt, random.int(0, 6));
        for (let n = next; n < killAt; n++)
          expected = conversationCandidates(expected, ops[n] as AdapterOperation)[2] ?? [];
        const loaded = await read();
        const candidates = conversationCandidates(expected, ops[killAt] as AdapterOperation);
        const match = candidates.findIndex((c) => JSON.stringify(c) === JSON.stringify(loaded.messages));
        expect(match, `round ${round}: turn ${killAt + 1} half-written`).toBeGreaterThanOrEqual(0);
        await expectAccepted(loaded);
        expected = candidates[match] ?? [];
        next = killAt + 1;
      }
      await runWorker(open, ops, next, undefined);
      for (let n = next; n < ops.length; n++)
        expected = conversationCandidates(expected, ops[n] as AdapterOperation)[2] ?? [];
      expect((await read()).messages).toEqual(expected);
    }, 600_000);
  });
}
