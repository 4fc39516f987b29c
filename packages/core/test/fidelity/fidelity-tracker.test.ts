import { FidelityAccumulator, type FidelityEntry, FidelityTracker } from "@palimpsest/core";
import { ReplacementText } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { assistant, result, summary, user } from "../support/messages.ts";

const entry = (message: FidelityEntry["message"], tokens = 10): FidelityEntry => ({ message, tokens });

/** A small conversation: a request, a shell call that fails with an error and a number, an edit. */
function conversation(): FidelityEntry[] {
  return [
    entry(user("Fix the failing test")),
    entry(assistant("", ["c1", "Bash", { command: "pytest tests/test_a.py" }])),
    entry(result("c1", "E   KeyError: 'x'\n1 failed in 0.42s")),
    entry(assistant("", ["c2", "Edit", { file_path: "src/a.py", old_string: "a", new_string: "b" }])),
    entry(result("c2", "ok")),
    entry(assistant("Fixed.")),
  ];
}

describe("FidelityTracker", () => {
  it("has recall 1 at every request while nothing is removed", () => {
    const tracker = new FidelityTracker();
    const live: FidelityEntry[] = [];
    for (const e of conversation()) {
      if (e.message.role === "assistant") expect(tracker.request(live).recall).toBe(1);
      live.push(e);
      tracker.append(e);
    }
    expect(tracker.held()).toEqual({ userRequests: 1, filePaths: 2, errorNames: 1, commands: 1, numbers: 1 });
  });

  it("counts what a compaction removed that nothing left holds, and what its summary keeps", () => {
    const tracker = new FidelityTracker();
    const all = conversation();
    for (const e of all) tracker.append(e);
    const kept = summary("The user asked: Fix the failing test\nRan `pytest tests/test_a.py`: KeyError, 0.42 s.");
    // The summary replaces the first three messages; the edit and its result stay.
    const after = [kept, ...all.slice(3)];
    const measured = tracker.compaction(after);
    expect(measured.removed).toEqual({ userRequests: 1, filePaths: 1, errorNames: 1, commands: 1, numbers: 1 });
    expect(measured.kept).toEqual({ userRequests: 1, filePaths: 1, errorNames: 1, commands: 1, numbers: 1 });
    expect(measured.removedTokens).toBe(30);
    expect(measured.replacementTokens).toBe(kept.tokens);
    expect(tracker.request(after).recall).toBe(1);
  });

  it("loses what a summary does not hold, per kind, and counts a path a kept message still holds as not removed", () => {
    const tracker = new FidelityTracker();
    const all = conversation();
    for (const e of all) tracker.append(e);
    const after = [summary("Worked on tests."), ...all.slice(3)];
    const measured = tracker.compaction(after);
    expect(measured.kept).toEqual({ userRequests: 0, filePaths: 0, errorNames: 0, commands: 0, numbers: 0 });
    // src/a.py stays with the edit; tests/test_a.py is gone.
    expect(measured.removed.filePaths).toBe(1);
    const recall = tracker.request(after);
    expect(recall.byKind).toEqual({ userRequests: 0, filePaths: 0.5, errorNames: 0, commands: 0, numbers: 0 });
    expect(recall.recall).toBeCloseTo(0.1);
  });

  it("checks an item that appears after a summary against the summary too, and a later summary of a summary", () => {
    const tracker = new FidelityTracker();
    const all = conversation();
    for (const e of all.slice(0, 3)) tracker.append(e);
    const first = summary("Fix the failing test; pytest tests/test_a.py gave KeyError in 0.42s; next edit src/a.py");
    tracker.compaction([first]);
    for (const e of all.slice(3)) tracker.append(e);
    const live = [first, ...all.slice(3)];
    expect(tracker.request(live).recall).toBe(1);
    // A second summary replaces the first one and the rest, keeping only the path.
    const second = summary("Edited src/a.py.");
    const measured = tracker.compaction([second]);
    expect(measured.removed).toEqual({ userRequests: 1, filePaths: 2, errorNames: 1, commands: 1, numbers: 1 });
    expect(measured.kept).toEqual({ userRequests: 0, filePaths: 1, errorNames: 0, commands: 0, numbers: 0 });
  });
});

describe("ReplacementText", () => {
  it("holds paths whole, errors as words, numbers canonically, requests verbatim", () => {
    const text = new ReplacementText(
      "Edited /repo/src/a.ts (not src/a.tsx). KeyErrors none; ValueError. 16 ms.\r\nrun it",
    );
    expect(text.holds("filePaths", "src/a.ts")).toBe(true);
    expect(text.holds("filePaths", "/repo/src/a.ts")).toBe(true);
    expect(text.holds("filePaths", "src/a.t")).toBe(false);
    expect(text.holds("filePaths", "rc/a.ts")).toBe(false);
    // the project-relative form of an absolute path holds it; a bare name does not
    expect(text.holds("filePaths", "/home/u/repo/src/a.ts")).toBe(true);
    expect(new ReplacementText("see a.ts").holds("filePaths", "/repo/src/a.ts")).toBe(false);
    expect(new ReplacementText("see ./a.ts").holds("filePaths", "/repo/src/a.ts")).toBe(false);
    expect(text.holds("errorNames", "KeyError")).toBe(false);
    expect(text.holds("errorNames", "ValueError")).toBe(true);
    expect(text.holds("numbers", "16ms")).toBe(true);
    expect(text.holds("numbers", "16s")).toBe(false);
    expect(text.holds("userRequests", "16 ms.\nrun it")).toBe(true);
    expect(text.holds("userRequests", "Run it")).toBe(false);
  });
});

describe("FidelityAccumulator", () => {
  it("averages recall over requests, each kind over the requests that held it, and pools the compactions", () => {
    const acc = new FidelityAccumulator();
    const none = { userRequests: null, filePaths: null, errorNames: null, commands: null, numbers: null };
    acc.recordRequest({ recall: 1, byKind: { ...none, userRequests: 1 } });
    acc.recordRequest({ recall: 0.5, byKind: { ...none, userRequests: 1, filePaths: 0 } });
    const zero = { userRequests: 0, filePaths: 0, errorNames: 0, commands: 0, numbers: 0 };
    acc.recordCompaction({
      removed: { ...zero, filePaths: 4 },
      kept: { ...zero, filePaths: 3 },
      removedTokens: 100,
      replacementTokens: 5,
    });
    acc.recordCompaction({
      removed: { ...zero, filePaths: 4 },
      kept: { ...zero, filePaths: 1 },
      removedTokens: 100,
      replacementTokens: 5,
    });
    const s = acc.summary();
    expect(s.meanRecall).toBe(0.75);
    expect(s.meanRecallByKind).toEqual({ ...none, userRequests: 1, filePaths: 0 });
    expect(s.keptRatio.filePaths).toBe(0.5);
    expect(s.keptRatio.commands).toBeNull();
    expect(s.sizeRatio).toBe(0.05);
    expect(new FidelityAccumulator().summary().meanRecall).toBe(1);
  });
});
