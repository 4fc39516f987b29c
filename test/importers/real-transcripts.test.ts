import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkToolPairs, type ImportedSession, type Message, parseTranscript } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const root = path.resolve(repoRoot, "../shared/transcripts");
const present = existsSync(root);
if (!present) console.warn(`skipping real transcript imports: ${root} is absent (a fresh clone has no ../shared)`);

const messagesOf = (s: ImportedSession | undefined): Message[] =>
  (s?.items ?? []).flatMap((i) => (i.kind === "message" ? [i.message] : []));
const textLength = (m: Message) => m.content.reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0);

/** Role counts, tool calls and the largest tool result, as in the SOURCES.md table. */
function stats(s: ImportedSession | undefined) {
  const ms = messagesOf(s);
  const count = (role: Message["role"]) => ms.filter((m) => m.role === role).length;
  return {
    msgs: ms.length,
    s: count("system"),
    u: count("user"),
    a: count("assistant"),
    t: count("tool"),
    calls: ms.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0),
    maxTool: Math.max(0, ...ms.filter((m) => m.role === "tool").map(textLength)),
  };
}

function importFile(relative: string): ImportedSession[] {
  const file = path.join(root, relative);
  const text = readFileSync(file, "utf8");
  const sessions = parseTranscript(text, { fileName: file });
  expect(parseTranscript(text, { fileName: file })).toEqual(sessions);
  for (const s of sessions) {
    expect(s.repairs.syntheticResults + s.repairs.orphanResults + s.repairs.skippedEmpty).toBe(0);
    expect(checkToolPairs(messagesOf(s))).toEqual([]);
  }
  return sessions;
}

describe.skipIf(!present)("real Claude Code sessions (spotter): one compaction each", () => {
  // SOURCES.md counts the isCompactSummary line as a user message; here it is the compaction's summary,
  // so `u` is one less than the table and the compaction item makes up the difference.
  it.each([
    ["4d5611e5-241a-462a-8d15-5122611a9569", 4, 139, 150, 150, 30_796, "auto", 170_251],
    ["8463c716-a2ea-4c14-9efa-87158ebd9f20", 3, 143, 177, 177, 39_316, "auto", 167_731],
    ["ae4a77f8-aedd-4bc1-888f-c94edc91af04", 7, 217, 242, 242, 12_850, "manual", 142_431],
    ["258c7280-ae70-4798-800f-63464d01a85d", 6, 152, 186, 186, 25_666, "auto", 167_094],
  ] as const)("%s: u/a/t %i/%i/%i, %i calls", (id, u, a, t, calls, maxTool, trigger, preTokens) => {
    const relative = `claude-code/spotter/${id}.jsonl`;
    const sessions = importFile(relative);
    expect(sessions).toHaveLength(1);
    const [s] = sessions;
    expect(s).toMatchObject({ externalId: id, model: "claude-opus-4-6" });
    expect(stats(s)).toMatchObject({ s: 0, u: u - 1, a, t, calls, maxTool, msgs: u - 1 + a + t });
    const compactions = (s?.items ?? []).flatMap((item, index) =>
      item.kind === "compaction" ? [{ item, index }] : [],
    );
    expect(compactions).toHaveLength(1);
    const [{ item, index }] = compactions as [{ item: ImportedSession["items"][number]; index: number }];
    expect(item).toMatchObject({ kind: "compaction", trigger, preTokens });

    // The summary is the isCompactSummary line; the next item is the first message after it in the file.
    const lines = readFileSync(path.join(root, relative), "utf8")
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const at = lines.findIndex((l) => l.isCompactSummary === true);
    const summaryLine = lines[at] as { uuid: string; message: { content: string } };
    if (item.kind !== "compaction") throw new Error("unreachable");
    expect(item.summary.id).toBe(summaryLine.uuid);
    expect(item.summary.content).toEqual([{ type: "text", text: summaryLine.message.content }]);
    const next = lines.slice(at + 1).find((l) => l.type === "user" || l.type === "assistant") as {
      uuid: string;
      type: string;
      message: { id?: string };
    };
    const after = s?.items[index + 1];
    expect(after?.kind === "message" ? after.message.id : undefined).toBe(
      next.type === "assistant" ? next.message.id : next.uuid,
    );
    const view = [item.summary, ...messagesOf({ ...(s as ImportedSession), items: s?.items.slice(index + 1) ?? [] })];
    expect(checkToolPairs(view)).toEqual([]);
    expect(s?.items.slice(index + 1).every((i) => i.kind === "message")).toBe(true);
  });

  it("reads each subagents/ file as one child session of its folder's session", () => {
    const dir = path.join(root, "claude-code/spotter");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.includes("subagents"));
    expect(files.filter((f) => f.endsWith(".jsonl"))).toHaveLength(9);
    let maxTool = 0;
    for (const file of files.filter((f) => f.endsWith(".jsonl"))) {
      const sessions = importFile(`claude-code/spotter/${file}`);
      expect(sessions).toHaveLength(1);
      const [s] = sessions;
      expect(s?.parentExternalId).toBe(file.split(/[\\/]/)[0]);
      expect(s?.externalId).toBe(path.basename(file, ".jsonl").replace(/^agent-/, ""));
      const st = stats(s);
      maxTool = Math.max(maxTool, st.maxTool);
      if (!file.includes("acompact")) {
        expect(st.msgs).toBeGreaterThanOrEqual(6);
        expect(st.msgs).toBeLessThanOrEqual(67);
        expect(st.calls).toBeGreaterThanOrEqual(2);
        expect(st.calls).toBeLessThanOrEqual(48);
      }
    }
    expect(maxTool).toBe(78_243);
  });
});

describe.skipIf(!present)("real Claude Code sessions (claude-code-viewer): inline sidechains", () => {
  it("fe5e1c67: main thread of 23 plus 5 threads; 345 messages and 167 calls in all", () => {
    const sessions = importFile("claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl");
    const main = "fe5e1c67-53e7-4862-81ae-d0e013e3270b";
    expect(sessions.map((s) => stats(s).msgs)).toEqual([23, 18, 68, 80, 50, 106]);
    expect(sessions[0]).toMatchObject({ externalId: main, title: "Empty Repo Setup: CLAUDE.md Foundation Created" });
    expect(sessions.slice(1).every((s) => s.parentExternalId === main)).toBe(true);
    expect(sessions.reduce((n, s) => n + stats(s).msgs, 0)).toBe(345);
    expect(sessions.reduce((n, s) => n + stats(s).calls, 0)).toBe(167);
  });

  it("5c0375b4: main thread of 25 plus 2 threads", () => {
    const sessions = importFile("claude-code/claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl");
    expect(sessions.map((s) => stats(s).msgs)).toEqual([25, 6, 14]);
    expect(sessions.map((s) => stats(s).calls)).toEqual([13, 2, 6]);
  });
});

describe.skipIf(!present)("real OpenHands, SWE-agent and tau-bench runs", () => {
  it("OpenHands: three runs of 47, 67 and 100 messages", () => {
    const sessions = importFile("openhands/multi_swe_bench_examples_output.jsonl");
    // Bare error observations (no tool_call_id, one each in runs 2 and 3) are skipped, as in the table.
    expect(sessions.map((s) => [s.externalId, stats(s).msgs, stats(s).calls])).toEqual([
      ["ponylang__ponyc-4595", 47, 23],
      ["ponylang__ponyc-4593", 67, 33],
      ["ponylang__ponyc-4588", 100, 49],
    ]);
    expect(Math.max(...sessions.map((s) => stats(s).maxTool))).toBe(20_740);
    // The first two end on a `finish` call with no result: left in flight, not repaired.
    for (const s of sessions.slice(0, 2)) expect(messagesOf(s).at(-1)?.toolCalls?.[0]?.name).toBe("finish");
  });

  it("SWE-agent: 28 messages; reused call ids renamed", () => {
    const [s, ...rest] = importFile(
      "swe-agent/marshmallow-code__marshmallow-1867__function_calling_replace_from_source.traj",
    );
    expect(rest).toHaveLength(0);
    expect(stats(s)).toMatchObject({ msgs: 28, s: 1, u: 1, a: 13, t: 13, calls: 13 });
    // call_5iDdbOYybq7L19vqXmR0DPaU is used four times and call_ahToD2vM0aQWJPkRmy5cumru twice: 3 + 1 renames.
    expect(s?.repairs.renamedCalls).toBe(4);
  });

  it("tau-bench: four trajectories of 62 messages", () => {
    const sessions = importFile("tau-bench/gpt-4o-airline.subset-52-33-109-196.json");
    // u/a/t measured on the file (the table gives only the totals); reused call ids are renamed.
    expect(sessions.map((s) => [stats(s).msgs, stats(s).u, stats(s).a, stats(s).t, stats(s).calls])).toEqual([
      [62, 4, 30, 27, 27],
      [62, 8, 30, 23, 23],
      [62, 8, 30, 23, 23],
      [62, 13, 30, 18, 18],
    ]);
    expect(sessions.map((s) => s.repairs.renamedCalls)).toEqual([5, 3, 4, 2]);
    expect(new Set(sessions.map((s) => s.externalId)).size).toBe(4);
  });
});
