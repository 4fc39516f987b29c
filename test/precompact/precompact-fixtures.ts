import {
  type CandidateStore,
  compactionThreshold,
  OfflineSummarizer,
  type RuntimeStore,
  type Summarizer,
  type SummaryRequest,
  type SummaryResult,
} from "@palimpsest/core";
import { type Palimpsest, resolveCompaction, type Session } from "@palimpsest/runtime";

/** The window the runtime tests use: threshold 54,400 on the local profile (the floor binds at 85%). */
export const WINDOW = 64_000;

/** A session's compaction threshold (hard) and the default soft threshold, 0.65 of it. */
export function thresholds(session: Session): { hard: number; soft: number } {
  const settings = resolveCompaction({}, session.state, () => 0);
  const hard = compactionThreshold(settings.contextWindow, settings.maxOutputTokens, settings.profile.threshold);
  return { hard, soft: Math.floor(0.65 * hard) };
}

/** The runtime's store as the candidate store it also is (openEventStore returns a OpenedEventStore). */
export function candidateStore(runtime: Palimpsest): RuntimeStore & CandidateStore {
  return runtime.store as RuntimeStore & CandidateStore;
}

/** A tool output of roughly `tokens` tokens of varied text. */
function output(n: number, tokens: number): string {
  const words = ["alpha", "build", "cache", "delta", "error:", "src/app.ts", "0x1f", "passed", "failed", "retry"];
  return Array.from({ length: tokens }, (_, i) => words[(i * 7 + n) % words.length]).join(" ");
}

/** Appends one completed turn (user, assistant with a call, tool result, reply) of about 1,500 tokens. */
export async function turn(session: Session, n: number): Promise<void> {
  await session.append(
    [
      { id: `u${n}`, role: "user", content: `step ${n}: run the build` },
      {
        id: `a${n}`,
        role: "assistant",
        content: "running",
        toolCalls: [{ id: `c${n}`, name: "shell", arguments: `{"n":${n}}` }],
      },
      { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: output(n, 1_500) },
      { id: `r${n}`, role: "assistant", content: `step ${n} done` },
    ],
    { turnId: `turn${n}` },
  );
  await session.completeTurn(`turn${n}`);
}

/** Adds turns from `from` until the view holds at least `tokens`; returns the next turn number. */
export async function growTo(session: Session, tokens: number, from = 0): Promise<number> {
  let n = from;
  while (session.state.liveTokens < tokens) await turn(session, n++);
  return n;
}

/** The offline summarizer, recording every request and result. */
export function recording(): { summarizer: Summarizer; calls: { request: SummaryRequest; result: SummaryResult }[] } {
  const inner = new OfflineSummarizer();
  const calls: { request: SummaryRequest; result: SummaryResult }[] = [];
  return {
    calls,
    summarizer: {
      model: inner.model,
      promptVersion: inner.promptVersion,
      async summarize(request, options) {
        const result = await inner.summarize(request, options);
        calls.push({ request, result });
        return result;
      },
    },
  };
}

/**
 * The offline summarizer held at a gate: `started` resolves when a call arrives, `arrived(n)` once `n` calls
 * have, `release` lets calls finish; `calls` and `maxActive` count calls made and the most in flight at once.
 */
export function gated(): {
  summarizer: Summarizer;
  started: Promise<void>;
  arrived: (n: number) => Promise<void>;
  release: () => void;
  calls: () => number;
  maxActive: () => number;
} {
  const inner = new OfflineSummarizer();
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  let active = 0;
  let max = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const arrived = (n: number) =>
    calls >= n ? Promise.resolve() : new Promise<void>((resolve) => void waiters.push({ n, resolve }));
  return {
    started: arrived(1),
    arrived,
    release,
    calls: () => calls,
    maxActive: () => max,
    summarizer: {
      model: inner.model,
      promptVersion: inner.promptVersion,
      async summarize(request, options) {
        calls++;
        max = Math.max(max, ++active);
        for (const w of waiters) if (calls >= w.n) w.resolve();
        try {
          await gate;
          return await inner.summarize(request, options);
        } finally {
          active--;
        }
      },
    },
  };
}

/** The offline summarizer taking `ms` per call, counting calls in flight overall and per first message id. */
export function slow(ms: number): { summarizer: Summarizer; maxActive: () => number; calls: () => number } {
  const inner = new OfflineSummarizer();
  let active = 0;
  let max = 0;
  let calls = 0;
  return {
    maxActive: () => max,
    calls: () => calls,
    summarizer: {
      model: inner.model,
      promptVersion: inner.promptVersion,
      async summarize(request, options) {
        calls++;
        max = Math.max(max, ++active);
        await new Promise((resolve) => setTimeout(resolve, ms));
        active--;
        return inner.summarize(request, options);
      },
    },
  };
}
