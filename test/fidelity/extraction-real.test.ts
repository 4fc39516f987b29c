import { FIDELITY_KINDS, type FidelityKind, type Message } from "@palimpsest/core";
import { conversationItems } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";

/** Every item of each kind a file's sessions bring, with the sessions' messages. */
function fileItems(file: string): { items: Record<FidelityKind, Set<string>>; messages: Message[] } {
  const items = Object.fromEntries(FIDELITY_KINDS.map((k) => [k, new Set<string>()])) as Record<
    FidelityKind,
    Set<string>
  >;
  const messages: Message[] = [];
  for (const session of realSessions(file)) {
    const own = session.items.flatMap((i) => (i.kind === "message" ? [i.message] : []));
    messages.push(...own);
    for (const found of conversationItems(own))
      for (const k of FIDELITY_KINDS) for (const v of found[k]) items[k].add(v);
  }
  return { items, messages };
}

/** Every string inside a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

describe.skipIf(!HAVE_TRANSCRIPTS)("fidelity extraction on the real transcripts", () => {
  for (const file of realTranscriptFiles()) {
    it(`${file}: paths and commands come from tool calls, requests from user messages`, () => {
      const { items, messages } = fileItems(file);
      const calls = messages.flatMap((m) => m.toolCalls ?? []);
      // Every path and command was written in some call's arguments (their string values, decoded).
      const argumentsText = calls
        .flatMap((c) => strings(JSON.parse(c.arguments)))
        .join("\n")
        .replace(/\r\n?/g, "\n");
      for (const path of items.filePaths) expect(argumentsText).toContain(path);
      for (const command of items.commands) expect(argumentsText).toContain(command);
      const userTexts = messages
        .filter((m) => m.role === "user")
        .map((m) => m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n"));
      for (const request of items.userRequests)
        expect(userTexts.some((t) => t.replace(/\r\n?/g, "\n").includes(request))).toBe(true);
      if (messages.some((m) => m.role === "user")) expect(items.userRequests.size).toBeGreaterThan(0);
      if (calls.length > 20 && !file.startsWith("tau-bench")) expect(items.filePaths.size).toBeGreaterThan(0);
    });
  }

  it("Claude Code: a path the agent read is extracted, its errors and test timings too", () => {
    const { items } = fileItems("claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    expect(items.filePaths).toContain(
      "/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/transcripts/annotation.ex",
    );
    expect(items.commands).toContain("git log --oneline -20");
    expect(items.errorNames).toContain("CompileError");
    expect([...items.numbers].some((n) => /^\d+\.\d+s$/.test(n))).toBe(true);
    // Harness notifications in the user's role are not requests.
    expect([...items.userRequests].some((r) => r.startsWith("<task-notification>"))).toBe(false);
  });

  it("OpenHands: a path a `find` printed is not a touched path, the file it edited is", () => {
    const { items } = fileItems("openhands/multi_swe_bench_examples_output.jsonl");
    expect(items.commands).toContain("find /workspace/ponylang__ponyc__0.1 -name ponyc");
    expect(items.filePaths).not.toContain("/workspace/ponylang__ponyc__0.1/src/ponyc");
    expect(items.filePaths).toContain("/workspace/ponylang__ponyc__0.1/src/libponyc/expr/match.c");
  });

  it("tau-bench: tool calls touch no files, run no shell, but their results hold measured numbers", () => {
    const { items } = fileItems("tau-bench/gpt-4o-airline.subset-52-33-109-196.json");
    expect(items.filePaths.size).toBe(0);
    expect(items.commands.size).toBe(0);
    expect(items.numbers.size).toBeGreaterThan(0);
    expect(items.userRequests.size).toBeGreaterThan(4);
  });
});
