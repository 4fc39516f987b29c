import { randomBytes } from "node:crypto";
import { type RuntimeStore, type Summarizer, SummarizerError } from "@palimpsest/core";
import { compact, type Palimpsest, type Session } from "@palimpsest/runtime";

/** A marker no other test writes: every content string of a populated session contains it. */
export function uniqueMarker(tag: string): string {
  return `ERASEME${tag}${randomBytes(6).toString("hex")}`;
}

/**
 * How a marker's tail shows in a search index: lower-cased, as core's searchTerms makes terms, and only its
 * last ten characters, which SQLite's FTS5 stores whole however much of the term it shares with the term
 * before it (it stores a term after their common prefix).
 */
export function indexedTail(marker: string): string {
  return marker.toLowerCase().slice(-10);
}

/** A summarizer whose summaries carry the marker. */
function markerSummarizer(marker: string): Summarizer {
  return {
    model: "marker-model",
    promptVersion: "v1",
    summarize: async () => ({ text: `summary ${marker} of what was said`, inputTokens: 10, outputTokens: 5 }),
  };
}

/** A summarizer that fails with the marker in its message (what a compaction failure's detail records). */
function failingSummarizer(marker: string): Summarizer {
  return {
    model: "marker-model",
    promptVersion: "v1",
    summarize: async () => {
      throw new SummarizerError("other", "test", `provider echoed ${marker}`);
    },
  };
}

/** Appends one completed turn in which every content field holds the marker. */
export async function markedTurn(session: Session, marker: string, n: number): Promise<void> {
  await session.append(
    [
      {
        id: `u${n}`,
        role: "user",
        content: [
          { type: "text", text: `question ${n} ${marker} ${"padding words ".repeat(40)}` },
          { type: "image", mediaType: "image/png", data: `${marker}imagedata${n}` },
        ],
        name: `${marker}name`,
        metadata: { note: `${marker} meta ${n}` },
      },
      {
        id: `a${n}`,
        role: "assistant",
        content: `thinking aloud ${marker}`,
        toolCalls: [{ id: `c${n}`, name: `tool_${marker}`, arguments: JSON.stringify({ path: `/home/${marker}/f` }) }],
        reasoning: { type: "thinking", thinking: `${marker} reasoning`, signature: `${marker}sig` },
      },
      { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: `output ${marker} ${"line of output ".repeat(60)}` },
      { id: `r${n}`, role: "assistant", content: `done ${n} ${marker}` },
    ],
    { turnId: `turn${n}`, idempotencyKey: `key-${session.id}-${n}` },
  );
  await session.completeTurn(`turn${n}`, { promptTokens: 1000 + n, completionTokens: 20 });
}

/**
 * A session with the marker in every place content can be: title and source file, message text, images,
 * participant names, metadata, reasoning, tool names, arguments and outputs, a summary, a failed
 * compaction's detail, a pre-compaction candidate, a snapshot, a queued hand-off's reason, idempotency keys.
 */
export async function populatedSession(runtime: Palimpsest, marker: string): Promise<Session> {
  const session = await runtime.startSession({
    model: "gpt-4o",
    contextWindow: 16_000,
    title: `${marker} title`,
    source: { format: "test", file: `/transcripts/${marker}.jsonl` },
  });
  for (let n = 0; n < 8; n++) await markedTurn(session, marker, n);
  const failed = await compact(session, { policy: "summary", summarizer: failingSummarizer(marker), force: true });
  if (failed.status !== "failed") throw new Error(`expected a failed compaction, got ${JSON.stringify(failed)}`);
  const done = await compact(session, { policy: "summary", summarizer: markerSummarizer(marker), force: true });
  if (done.status !== "compacted") throw new Error(`expected a compaction, got ${done.status}`);
  await markedTurn(session, marker, 8);
  const store = runtime.store as RuntimeStore;
  const saved = await store.saveCandidate({
    key: {
      sessionId: session.id,
      lastMessageId: "r8",
      prefixHash: `${marker}prefix`,
      systemPromptHash: `${marker}system`,
      summarizerModel: "marker-model",
      promptVersion: "v1",
    },
    targets: ["u8", "a8"],
    summary: `candidate ${marker}`,
    basisViewVersion: session.state.viewVersion,
    createdAt: Date.now(),
    summaryMs: 3,
  });
  if (!saved) throw new Error("the candidate was not stored");
  await runtime.handoffs.request(session, { reason: `${marker} reason`, target: "workers" });
  return session;
}
