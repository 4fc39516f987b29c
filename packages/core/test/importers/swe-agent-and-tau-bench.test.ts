import { type ImportedSession, type Message, parseTranscript } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const messagesOf = (s: ImportedSession | undefined): Message[] =>
  (s?.items ?? []).flatMap((i) => (i.kind === "message" ? [i.message] : []));
const bash = (id: string) => ({
  role: "assistant",
  content: "run",
  tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }],
});

describe("SWE-agent import", () => {
  const traj = {
    trajectory: [],
    replay_config: JSON.stringify({ agent: { name: "demo", model: { name: "gpt-4o" } } }),
    history: [
      { role: "system", content: "sys", agent: "main" },
      { role: "user", content: "task", agent: "main" },
      bash("call_1"),
      { role: "tool", content: "out 1", tool_call_ids: ["call_1"] },
      bash("call_1"),
      { role: "tool", content: "out 2", tool_call_ids: ["call_1"] },
    ],
  };
  const [s] = parseTranscript(JSON.stringify(traj, null, 2), { fileName: "x/inst-1.traj" });

  it("reads history with tool_call_ids and the replay config's model", () => {
    expect(s).toMatchObject({ externalId: "inst-1", format: "swe-agent", model: "gpt-4o", title: "demo" });
    expect(messagesOf(s).map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
  });

  it("renames a reused call id and points its result at the new id", () => {
    const ms = messagesOf(s);
    expect(ms[4]?.toolCalls?.[0]?.id).toBe("call_1~2");
    expect(ms[5]).toMatchObject({ toolCallId: "call_1~2", metadata: { originalToolCallId: "call_1" } });
    expect(s?.repairs.renamedCalls).toBe(1);
  });
});

describe("tau-bench import", () => {
  const entry = (task: number, trial: number) => ({
    task_id: task,
    trial,
    reward: 1,
    info: {},
    traj: [
      { role: "system", content: "policy" },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ],
  });
  it("reads one session per entry with ids from task and trial", () => {
    const progress: number[] = [];
    const sessions = parseTranscript(JSON.stringify([entry(2, 0), entry(2, 1)]), {
      fileName: "airline.json",
      onProgress: (done) => progress.push(done),
    });
    expect(sessions.map((s) => [s.externalId, s.format, s.items.length])).toEqual([
      ["airline:task-2-trial-0", "tau-bench", 3],
      ["airline:task-2-trial-1", "tau-bench", 3],
    ]);
    expect(progress).toEqual([1, 2]);
  });
});
