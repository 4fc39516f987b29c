/**
 * Run as its own process by adapter-kills.test.ts: opens an OpenAI Agents SDK session or an AI SDK
 * conversation on the URL it is sent, then runs the numbered operations it is sent one by one, saying
 * "begin" before each and "end" after it, until the parent SIGKILLs it.
 */
import type { AgentInputItem } from "@openai/agents-core";
import { type Conversation, openConversation } from "@palimpsest/ai-sdk";
import { openAgentsSession, type PalimpsestAgentsSession } from "@palimpsest/openai-agents";
import { type AdapterOperation, adapterTurn, conversationTurn } from "./adapter-operations.ts";
import { report } from "./fault-process.ts";

/** A message from the parent: open the adapter on a session, or run one operation. */
export type AdapterRequest =
  | { t: "open"; url: string; kind: "agents" | "ai"; sessionId: string }
  | { t: "run"; n: number; operation: AdapterOperation };

let agents: PalimpsestAgentsSession | undefined;
let conversation: Conversation | undefined;
let queue = Promise.resolve();

async function handle(request: AdapterRequest): Promise<void> {
  if (request.t === "open") {
    const options = { url: request.url, sessionId: request.sessionId, model: "gpt-4o" };
    if (request.kind === "agents") agents = await openAgentsSession(options);
    else conversation = await openConversation({ ...options, compaction: { auto: false } });
    await report({ t: "opened" });
    return;
  }
  const { n, operation } = request;
  await report({ t: "begin", n });
  if (operation.op === "turn" && agents !== undefined)
    await agents.addItems(adapterTurn(operation.turn) as AgentInputItem[]);
  else if (operation.op === "pop") await agents?.popItem();
  else if (operation.op === "transaction") {
    await agents?.applyHistoryTransaction({
      operationId: `op-${operation.turn}`,
      transaction: { type: "append_items", items: adapterTurn(operation.turn) as AgentInputItem[] },
    });
  } else if (operation.op === "turn" && conversation !== undefined) {
    const { input, response } = conversationTurn(operation.turn);
    await conversation.save(input);
    await conversation.saveResponse({ responseMessages: response });
  }
  await report({ t: "end", n });
}

process.on("message", (request: AdapterRequest) => {
  queue = queue
    .then(() => handle(request))
    .catch(async (error: unknown) => {
      await report({ t: "error", message: String(error) });
    });
});
