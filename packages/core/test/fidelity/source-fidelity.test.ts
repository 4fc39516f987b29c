import { type ImportedSession, type Message, sourceFidelity } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { assistant, result, user } from "../support/messages.ts";

const REPAIRS = { syntheticResults: 0, orphanResults: 0, renamedCalls: 0, renamedMessages: 0, skippedEmpty: 0 };

function session(items: ImportedSession["items"]): ImportedSession {
  return { externalId: "s", format: "claude-code", items, repairs: REPAIRS };
}

const message = (m: Message) => ({ kind: "message" as const, message: m });
const size = (m: Message) => m.content.reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0) + 10;

describe("sourceFidelity", () => {
  it("measures the source's compaction on everything before it, and the prompts it sent after it", () => {
    const summaryText = "The user asked to run the tests; `npm test` failed with TypeError in src/a.ts.";
    const items: ImportedSession["items"] = [
      message(user("run the tests")),
      message(assistant("", ["c1", "Bash", { command: "npm test" }])),
      message(result("c1", "TypeError: x\n12 failed in 3.5 s")),
      message(
        assistant("", ["c2", "Read", { file_path: "/repo/src/a.ts" }], ["c3", "Read", { file_path: "/repo/b.ts" }]),
      ),
      message(result("c2", "code")),
      message(result("c3", "code")),
      { kind: "compaction", summary: user(summaryText), trigger: "auto" },
      message(user("continue")),
      message(assistant("done")),
    ];
    const measured = sourceFidelity(session(items), size);
    expect(measured.compactions).toHaveLength(1);
    const [c] = measured.compactions;
    expect(c?.requestIndex).toBe(2);
    expect(c?.trigger).toBe("auto");
    expect(c?.removed).toEqual({ userRequests: 1, filePaths: 2, errorNames: 1, commands: 1, numbers: 1 });
    // "run the tests" is in the summary verbatim, /repo/src/a.ts by its last segments, /repo/b.ts not at all.
    expect(c?.kept).toEqual({ userRequests: 1, filePaths: 1, errorNames: 1, commands: 1, numbers: 0 });
    expect(c?.replacementTokens).toBe(summaryText.length + 10);
    // Two requests before the compaction at recall 1, the last one after it.
    expect(measured.recalls.map((r) => r.recall).slice(0, 2)).toEqual([1, 1]);
    expect(measured.recalls[2]?.byKind.filePaths).toBe(0.5);
    expect(measured.summary.requests).toBe(3);
    expect(measured.held.userRequests).toBe(2);
  });

  it("has recall 1 and no compaction for a transcript that never compacted", () => {
    const measured = sourceFidelity(session([message(user("hi")), message(assistant("hello"))]), size);
    expect(measured.summary.meanRecall).toBe(1);
    expect(measured.compactions).toEqual([]);
  });
});
