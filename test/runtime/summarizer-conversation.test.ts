/**
 * A summarizer that reads the conversation (Summarizer.readsConversation): the runtime passes the view as
 * it stood when the compaction was planned, the span's range in it and the view's last summary, on the
 * batch path and in a pre-compaction job; none when the span is not one run of the view, none to a
 * summarizer that does not read it. Then AnthropicSummarizer's conversation mode end to end, against a
 * local server speaking the messages API, with the request builder the docs show.
 */
import { OfflineSummarizer, type Summarizer, type SummaryRequest } from "@palimpsest/core";
import { toAnthropicRequest } from "@palimpsest/projections";
import { compact, openPalimpsest, type Palimpsest, PrecompactionScheduler, type Session } from "@palimpsest/runtime";
import { AnthropicSummarizer } from "@palimpsest/summarizers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../../packages/summarizers/test/support/fake-provider.ts";
import { anthropicMessage, sectionedAnswer } from "../../packages/summarizers/test/support/sample.ts";
import { candidateStore, growTo, thresholds, turn, WINDOW } from "../precompact/precompact-fixtures.ts";

/** The offline summarizer, reading the conversation (or not), recording every request. */
function recording(readsConversation = true): { summarizer: Summarizer; requests: SummaryRequest[] } {
  const inner = new OfflineSummarizer();
  const requests: SummaryRequest[] = [];
  return {
    requests,
    summarizer: {
      model: inner.model,
      promptVersion: inner.promptVersion,
      readsConversation,
      summarize: (request, options) => {
        requests.push(request);
        return inner.summarize(request, options);
      },
    },
  };
}

/** The ids of a compaction's targets, from its committed event. */
function targetsOf(outcome: Awaited<ReturnType<typeof compact>>): string[] {
  if (outcome.status !== "compacted" || outcome.event.type !== "messages.superseded") throw new Error("not compacted");
  return outcome.event.data.targets;
}

const ids = (messages: readonly { id: string }[]) => messages.map((m) => m.id);

/**
 * The ids of the agent's last request within `messages`: all before the last assistant message (its
 * reply), or through `end` when the span runs past it.
 */
const lastRequest = (messages: readonly { id: string; role: string }[], end: number) =>
  ids(
    messages.slice(
      0,
      Math.max(
        end,
        messages.findLastIndex((m) => m.role === "assistant"),
      ),
    ),
  );

async function started(palimpsest: Palimpsest): Promise<Session> {
  const session = await palimpsest.startSession({ contextWindow: WINDOW, profile: "local" });
  await session.append({ id: "sys", role: "system", content: "You are a careful coding agent." });
  return session;
}

describe("the conversation the runtime passes a summarizer that reads it", () => {
  let palimpsest: Palimpsest;
  beforeAll(async () => {
    palimpsest = await openPalimpsest({ url: ":memory:" });
  });
  afterAll(() => palimpsest.close());

  it("is the view as planned, the span's range in it and the view's last summary, folded in by the next", async () => {
    const session = await started(palimpsest);
    const next = await growTo(session, 20_000);
    const { summarizer, requests } = recording();
    const before = session.view();
    const first = targetsOf(await compact(session, { policy: "summary", summarizer, force: true }));
    const [request] = requests;
    const conversation = request?.conversation;
    expect(conversation?.start).toBe(ids(before.messages).indexOf(first[0] ?? ""));
    expect(conversation?.end).toBe((conversation?.start ?? 0) + first.length);
    // Up to the agent's last request: its reply and the tool results after it are left out.
    expect(ids(conversation?.messages ?? [])).toEqual(lastRequest(before.messages, conversation?.end ?? 0));
    expect(conversation?.messages.length).toBeLessThan(before.messages.length);
    expect(ids(conversation?.messages.slice(conversation.start, conversation.end) ?? [])).toEqual(first);
    expect(conversation?.lastSummaryId).toBeUndefined();
    expect(request?.messages.length).toBe(first.length); // the plain request is filled in all the same

    await growTo(session, 30_000, next);
    const again = session.view();
    const summaryId = again.lastSummaryId;
    expect(summaryId).toBeDefined();
    const second = targetsOf(await compact(session, { policy: "summary", summarizer, force: true }));
    const update = requests[1]?.conversation;
    expect(second).toContain(summaryId); // the first summary is folded into the second
    expect(update?.lastSummaryId).toBe(summaryId);
    expect(ids(update?.messages ?? [])).toEqual(lastRequest(again.messages, update?.end ?? 0));
    expect(ids(update?.messages.slice(update.start, update.end) ?? [])).toEqual(second);
    expect(requests[1]?.previousSummary).toBeDefined();
  });

  it("is not passed when the span is not one run of the view (the last request pinned inside it)", async () => {
    const session = await started(palimpsest);
    await growTo(session, 6_000);
    await session.append({ id: "the-request", role: "user", content: "now refactor every module" });
    // A long agent run after that one request: the request falls before the tail and stays, pinned.
    for (let n = 0; n < 16; n++) {
      await session.append([
        {
          id: `run-a${n}`,
          role: "assistant",
          content: "",
          toolCalls: [{ id: `run-c${n}`, name: "shell", arguments: "{}" }],
        },
        { id: `run-t${n}`, role: "tool", toolCallId: `run-c${n}`, content: `module ${n} `.repeat(600) },
      ]);
    }
    const { summarizer, requests } = recording();
    const targets = targetsOf(await compact(session, { policy: "summary", summarizer, force: true }));
    const view = ids(session.view().messages);
    expect(view).toContain("the-request");
    expect(targets.indexOf("run-a0")).toBeGreaterThan(0); // targets on both sides of the pinned request
    expect(requests).toHaveLength(1);
    expect(requests[0]?.conversation).toBeUndefined();
    expect(requests[0]?.messages.length).toBeGreaterThan(0);
  });

  it("is not passed to a summarizer that does not read it", async () => {
    const session = await started(palimpsest);
    await growTo(session, 20_000);
    const { summarizer, requests } = recording(false);
    targetsOf(await compact(session, { policy: "summary", summarizer, force: true }));
    expect(requests[0]?.conversation).toBeUndefined();
  });

  it("is passed to a pre-compaction job over its candidate's prefix, and not for the delta after it", async () => {
    const { summarizer, requests } = recording();
    const scheduler = new PrecompactionScheduler({
      candidates: candidateStore(palimpsest),
      compaction: { policy: "summary", summarizer },
      precompact: { debounceMs: 0, keepDelta: false },
    });
    const session = await started(palimpsest);
    const next = await growTo(session, thresholds(session).soft);
    const view = session.view();
    scheduler.onTurnCompleted(session);
    await scheduler.idle();
    const candidate = await candidateStore(palimpsest).loadCandidate(session.id);
    if (candidate === undefined) throw new Error("no candidate");
    const job = requests[0]?.conversation;
    expect(ids(job?.messages ?? [])).toEqual(lastRequest(view.messages, job?.end ?? 0));
    expect(ids(job?.messages.slice(job.start, job.end) ?? [])).toEqual(candidate.targets);

    await growTo(session, thresholds(session).hard, next);
    const outcome = await scheduler.compact(session);
    expect(outcome.precompact).toMatchObject({ type: "hit" });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.previousSummary).toContain(candidate.summary.slice(0, 40));
    expect(requests[1]?.conversation).toBeUndefined(); // it continues the candidate, which the view does not hold
  });
});

describe("AnthropicSummarizer reading the conversation in a session's compaction", () => {
  const TOOLS = [{ name: "shell", description: "Runs a command", input_schema: { type: "object" as const } }];
  let palimpsest: Palimpsest;
  let provider: FakeProvider;
  beforeAll(async () => {
    palimpsest = await openPalimpsest({ url: ":memory:" });
    provider = await startFakeProvider([{ body: anthropicMessage(sectionedAnswer("read from the cache")) }]);
  });
  afterAll(async () => {
    await provider.close();
    await palimpsest.close();
  });

  it("sends the agent's own request, breakpoints and tools included, then the instruction", async () => {
    const summarizer = new AnthropicSummarizer({
      model: "claude-agent-model",
      baseURL: provider.baseURL,
      apiKey: "k",
      maxRetries: 0,
      conversation: {
        request: (c) => ({
          ...toAnthropicRequest(c.messages, { cache: { summaryId: c.lastSummaryId } }),
          tools: TOOLS,
        }),
      },
    });
    const session = await started(palimpsest);
    let next = await growTo(session, 20_000);
    await compact(session, { policy: "summary", summarizer, force: true });
    next = await growTo(session, 30_000, next);
    await turn(session, next);
    const view = session.view();
    // The agent's last request: the view before its last reply.
    const sent = view.messages.slice(
      0,
      view.messages.findLastIndex((m) => m.role === "assistant"),
    );
    const agent = { ...toAnthropicRequest(sent, { cache: { summaryId: view.lastSummaryId } }), tools: TOOLS };
    const targets = targetsOf(await compact(session, { policy: "summary", summarizer, force: true }));

    const received = provider.received.at(-1);
    const body = received?.json as typeof agent & { model: string };
    expect(body.model).toBe("claude-agent-model");
    expect(body.system).toStrictEqual(agent.system);
    expect(body.tools).toStrictEqual(agent.tools);
    // The request ends on a user turn (tool results): the instruction is one more block of it.
    expect(body.messages).toHaveLength(agent.messages.length);
    expect(body.messages.slice(0, -1)).toStrictEqual(agent.messages.slice(0, -1));
    expect(received?.raw).toContain(JSON.stringify(agent.messages.slice(0, -1)).slice(0, -1));
    const [last, agentLast] = [body.messages.at(-1), agent.messages.at(-1)];
    expect(last?.role).toBe("user");
    expect(last?.content.slice(0, -1)).toStrictEqual(agentLast?.content); // its blocks and breakpoints as sent
    const instruction = last?.content.at(-1);
    const text = instruction?.type === "text" ? instruction.text : "";
    const first = view.messages.find((m) => m.id === targets[0]);
    const after = view.messages[view.messages.findIndex((m) => m.id === targets.at(-1)) + 1];
    expect(text).toContain(`starts at the ${first?.role} message that begins`);
    expect(text).toContain(
      `ends just before the ${after?.role} message that begins "${after?.content[0]?.type === "text" ? after.content[0].text : ""}"`,
    );
    expect(text).toContain("The span holds 1 earlier summary");
    expect(JSON.stringify(session.view().messages)).toContain("read from the cache");
  });
});
