import type { PrecompactionCandidate } from "@palimpsest/core";

/** A pre-compaction candidate of `sessionId` at view version 0, with `overrides`: for tests that store one. */
export function testCandidate(
  sessionId: string,
  overrides: Partial<PrecompactionCandidate> = {},
): PrecompactionCandidate {
  return {
    key: {
      sessionId,
      lastMessageId: "t9",
      prefixHash: "a".repeat(64),
      systemPromptHash: "b".repeat(64),
      summarizerModel: "offline-extractive",
      promptVersion: "v1",
    },
    targets: ["r0", "u1", "a1", "t1", "«ユニコード» \u0000"],
    summary: "Goal: ship it. Blocked: nothing.",
    basisViewVersion: 0,
    createdAt: Date.now(),
    summaryMs: 42,
    ...overrides,
  };
}
