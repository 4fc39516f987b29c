import { telemetryFromLog } from "@palimpsest/core";
import { assistantMessage, startedData, toolResult, toStoredEvents, userMessage } from "@palimpsest/testing";
import { expect, it } from "vitest";

it("does not count insertion trims or an import's own compaction as compaction passes", () => {
  const stub = { ...toolResult("t1~trim", "c1", "trimmed"), id: "t1~trim" };
  const events = toStoredEvents("s", [
    { type: "session.started", data: startedData() },
    { type: "message.appended", data: { message: userMessage("u1", "go"), tokens: 2 } },
    { type: "message.appended", data: { message: assistantMessage("a1", "", ["c1"]), tokens: 3 } },
    { type: "message.appended", data: { message: toolResult("t1", "c1", "x".repeat(100)), tokens: 900 } },
    {
      type: "messages.superseded",
      data: {
        compactionId: "trim:t1",
        targets: ["t1"],
        replacements: [{ kind: "stub", message: stub, tokens: 10, at: "t1" }],
        mode: "trim",
        basis: { viewVersion: 0 },
        producer: { policy: "insertion-trim" },
        stats: { tokensBefore: 905, tokensAfter: 15 },
        trigger: "auto",
      },
    },
    {
      type: "messages.superseded",
      data: {
        compactionId: "imported",
        targets: ["u1", "a1", "t1~trim"],
        replacements: [{ kind: "summary", message: userMessage("sum", "summary"), tokens: 3 }],
        mode: "import",
        basis: { viewVersion: 1 },
        producer: { policy: "claude-code-import" },
        stats: { tokensBefore: 15, tokensAfter: 3 },
        trigger: "auto",
      },
    },
  ]);
  expect(telemetryFromLog(events)).toEqual([]);
});
