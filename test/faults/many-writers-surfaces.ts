/**
 * The public surfaces many-writers.test.ts drives from several processes at once, each writing whole
 * agent turns to one shared session: the runtime's Session, the OpenAI Agents SDK session, the AI SDK
 * conversation and the Claude Agent SDK SessionStore. Every message a turn writes carries a marker
 * (`w<worker>t<turn> question|result|answer`) so the parent can count it in the log whatever ids an
 * adapter gives it.
 */
import type { AgentInputItem } from "@openai/agents-core";
import { openConversation } from "@palimpsest/ai-sdk";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { openAgentsSession } from "@palimpsest/openai-agents";
import type { CompactionSettings, Palimpsest, Session } from "@palimpsest/runtime";
import type { ModelMessage } from "ai";

/** Which public surface a worker writes through. */
export type Surface = "session" | "agents" | "ai-sdk" | "session-store";

/** Every surface, in the order the suite runs them. */
export const SURFACES: readonly Surface[] = ["session", "agents", "ai-sdk", "session-store"];

/** The Claude Agent SDK key the session-store workers of one run append to: the run's session id. */
export function storeKey(sessionId: string): { projectKey: string; sessionId: string } {
  return { projectKey: "many-writers", sessionId };
}

/** The kinds of marked message a turn writes. */
export const MARKED = ["question", "result", "answer"] as const;

/** The marker of one message of turn `n` of worker `w`. */
export function marker(w: number, n: number, kind: (typeof MARKED)[number]): string {
  return `w${w}t${n} ${kind}`;
}

/** Every marker in a text. */
export function markersIn(text: string): string[] {
  return text.match(/w\d+t\d+ (?:question|result|answer)/g) ?? [];
}

/** What a worker's surface does, turn by turn, and the Session handle it writes through (when it has one). */
export interface SurfaceDriver {
  turn(n: number): Promise<void>;
  readonly session?: Session;
  close(): Promise<void>;
}

/** Where a worker writes: the store URL, the shared session, whether writes carry idempotency keys. */
export interface DriverOptions {
  url: string;
  worker: number;
  sessionId: string;
  keyed: boolean;
  /** The worker's runtime (the Session, Agents and AI SDK surfaces; the SessionStore opens its own). */
  runtime: Palimpsest;
  compaction: CompactionSettings;
  /** Told of anything a surface reports out of band (a fold error, an after-turn error). */
  onError: (error: unknown) => void;
}

/** Opens the driver of `surface`. */
export function openDriver(surface: Surface, options: DriverOptions): Promise<SurfaceDriver> {
  switch (surface) {
    case "session":
      return sessionDriver(options);
    case "agents":
      return agentsDriver(options);
    case "ai-sdk":
      return conversationDriver(options);
    case "session-store":
      return sessionStoreDriver(options);
  }
}

/**
 * A turn through Session: the user's message, then the call, its result and the answer in one append,
 * then completeTurn (with the runtime's automatic compaction). Keyed, each append carries a key, and every
 * seventh turn sends its second append twice (a retry after a lost answer), which must store nothing more.
 */
async function sessionDriver({ runtime, sessionId, worker: w, keyed }: DriverOptions): Promise<SurfaceDriver> {
  const session = await runtime.resume(sessionId);
  return {
    async turn(n) {
      const turnId = `w${w}t${n}`;
      const key = (part: string) => (keyed ? { idempotencyKey: `${turnId}-${part}` } : {});
      await session.append({ role: "user", content: marker(w, n, "question") }, { turnId, ...key("input") });
      const response = [
        {
          role: "assistant" as const,
          content: "",
          toolCalls: [{ id: `${turnId}-call`, name: "lookup", arguments: `{"n":${n}}` }],
        },
        { role: "tool" as const, toolCallId: `${turnId}-call`, content: marker(w, n, "result") },
        { role: "assistant" as const, content: marker(w, n, "answer") },
      ];
      await session.append(response, { turnId, ...key("response") });
      if (keyed && n % 7 === 3) await session.append(response, { turnId, ...key("response") });
      await session.completeTurn(turnId, { promptTokens: 100 + n, completionTokens: 10 });
    },
    session,
    close: async () => {},
  };
}

/** The items the Runner stores for one turn: the input, then a call, its result and the answer. */
function agentsTurn(w: number, n: number): { input: AgentInputItem[]; output: AgentInputItem[] } {
  const callId = `w${w}t${n}-call`;
  return {
    input: [{ type: "message", role: "user", content: marker(w, n, "question") }],
    output: [
      { type: "function_call", callId, name: "lookup", arguments: `{"n":${n}}`, status: "completed" },
      {
        type: "function_call_result",
        name: "lookup",
        callId,
        status: "completed",
        output: { type: "text", text: marker(w, n, "result") },
      },
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: marker(w, n, "answer") }],
      },
    ],
  };
}

/**
 * A turn through the OpenAI Agents SDK session as the Runner makes it: the input, then the turn's items,
 * then runCompaction (completes the turn, compacts when over the threshold). Keyed, the items go through
 * applyHistoryTransaction under an operation id. Every tenth turn also adds an aside and pops the newest
 * item (whichever worker's it is by then), and worker 0 clears the session once, at turn 50.
 */
async function agentsDriver({ runtime, sessionId, worker: w, keyed, compaction }: DriverOptions) {
  const { auto: _auto, ...settings } = compaction;
  const session = await openAgentsSession({ runtime, sessionId, compaction: settings });
  const add = async (items: AgentInputItem[], operationId: string) => {
    if (keyed) await session.applyHistoryTransaction({ operationId, transaction: { type: "append_items", items } });
    else await session.addItems(items);
  };
  return {
    async turn(n: number) {
      const { input, output } = agentsTurn(w, n);
      await add(input, `w${w}t${n}-input`);
      await add(output, `w${w}t${n}-output`);
      await session.runCompaction();
      if (n % 10 === 5) {
        await add([{ type: "message", role: "user", content: `w${w}t${n} aside` }], `w${w}t${n}-aside`);
        await session.popItem();
      }
      if (w === 0 && n === 50) await session.clearSession();
    },
    session: session.session,
    close: () => session.close(),
  } satisfies SurfaceDriver;
}

/** One AI SDK turn's response messages: a tool step and the answer. */
function responseMessages(w: number, n: number): ModelMessage[] {
  const toolCallId = `w${w}t${n}-call`;
  return [
    { role: "assistant", content: [{ type: "tool-call", toolCallId, toolName: "lookup", input: { n } }] },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId,
          toolName: "lookup",
          output: { type: "text", value: marker(w, n, "result") },
        },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: marker(w, n, "answer") }] },
  ];
}

/**
 * A turn through the AI SDK conversation: the user's input, then saveResponse (completes the turn; the
 * runtime compacts after it). Keyed, the input is a UI message with an id, saved twice (a resent
 * request), which must store it once.
 */
async function conversationDriver({ runtime, sessionId, worker: w, keyed }: DriverOptions): Promise<SurfaceDriver> {
  const conversation = await openConversation({ runtime, sessionId });
  return {
    async turn(n) {
      const text = marker(w, n, "question");
      if (keyed) {
        const message = { id: `w${w}t${n}-ui`, role: "user" as const, parts: [{ type: "text" as const, text }] };
        await conversation.saveUIMessages([message]);
        await conversation.saveUIMessages([message]);
      } else await conversation.save([{ role: "user", content: text }]);
      await conversation.saveResponse({ responseMessages: responseMessages(w, n) });
    },
    session: conversation.session,
    close: () => conversation.close(),
  };
}

/**
 * A turn through the Claude Agent SDK SessionStore, as Claude Code mirrors one: the user's line, then the
 * assistant's tool_use, the tool_result and the answer in one append (each line with its uuid: Claude
 * Code's lines always carry one, so this surface runs keyed only). Folds run in the background; close
 * flushes them.
 */
async function sessionStoreDriver({ url, worker: w, sessionId, onError }: DriverOptions): Promise<SurfaceDriver> {
  const store = await openSessionStore({ url, settleMs: 20, onError });
  const key = storeKey(sessionId);
  let parent: string | null = null;
  const line = (n: number, part: string, type: "user" | "assistant", message: Record<string, unknown>) => {
    const uuid = `${sessionId}-w${w}t${n}${part}`;
    const entry = {
      parentUuid: parent,
      isSidechain: false,
      type,
      message,
      uuid,
      sessionId,
      timestamp: new Date(Date.UTC(2026, 11, 4, 0, 0, 0, n * 10 + w)).toISOString(),
    };
    parent = uuid;
    return entry;
  };
  const assistant = (n: number, part: string, content: unknown[]) =>
    line(n, part, "assistant", { id: `msg_w${w}t${n}${part}`, role: "assistant", model: "claude-sonnet-4-5", content });
  return {
    async turn(n) {
      const callId = `toolu_w${w}t${n}`;
      await store.append(key, [line(n, "q", "user", { role: "user", content: marker(w, n, "question") })]);
      await store.append(key, [
        assistant(n, "c", [{ type: "tool_use", id: callId, name: "lookup", input: { n } }]),
        line(n, "r", "user", {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: callId, content: marker(w, n, "result") }],
        }),
        assistant(n, "a", [{ type: "text", text: marker(w, n, "answer") }]),
      ]);
    },
    close: () => store.close(),
  };
}
