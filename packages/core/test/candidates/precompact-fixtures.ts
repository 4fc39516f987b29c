import type { CandidateInput, LiveEntry, PrecompactionCandidate } from "@palimpsest/core";
import { OPENAI_PROFILE } from "@palimpsest/core/testing";
import { assistantMessage, userMessage } from "@palimpsest/testing";
import { callTools, live, output, system } from "../compaction/view-builders.ts";

/** The summarizer the fixtures key their candidates with. */
export const SUMMARIZER = { model: "offline-extractive", promptVersion: "v1" };

/** A live entry introduced by the event at `seq`. */
export function at(seq: number, entry: LiveEntry): LiveEntry {
  return { ...entry, seq };
}

/**
 * A system prompt, then `count` exchanges (user, call, 6,000-token result, reply), exchange n at seq n:
 * on a 200K window with no output reserve (threshold 100,000, soft 65,000 at 0.65, tail 10,000).
 */
export function exchanges(count: number, prompt = "You are an agent."): LiveEntry[] {
  const view = [at(1, live(system("sys", prompt), 100))];
  for (let n = 1; n <= count; n++) {
    view.push(
      at(n + 1, live(userMessage(`u${n}`, `step ${n}`), 100)),
      at(n + 1, live(callTools(`a${n}`, [[`c${n}`, "shell"]]), 100)),
      at(n + 1, live(output(`t${n}`, `c${n}`, `output ${n}`), 6_000)),
      at(n + 1, live(assistantMessage(`r${n}`, `done ${n}`), 100)),
    );
  }
  return view;
}

/** The background planner's input over `view`, every entry stable unless told otherwise. */
export function candidateInput(view: LiveEntry[], overrides: Partial<CandidateInput> = {}): CandidateInput {
  return {
    sessionId: "s1",
    view,
    viewVersion: 0,
    liveTokens: view.reduce((n, e) => n + e.tokens, 0),
    contextWindow: 200_000,
    maxOutputTokens: 0,
    profile: OPENAI_PROFILE,
    compactions: 0,
    stableThroughSeq: Number.MAX_SAFE_INTEGER,
    softRatio: 0.65,
    summarizer: SUMMARIZER,
    ...overrides,
  };
}

/** A stored candidate for a planned key and targets. */
export function candidateFor(key: PrecompactionCandidate["key"], targets: string[]): PrecompactionCandidate {
  return { key, targets, summary: "what happened so far", basisViewVersion: 0, createdAt: 0, summaryMs: 10 };
}
