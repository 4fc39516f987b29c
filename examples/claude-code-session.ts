/** A small Claude Code session transcript (the JSONL lines Claude Code writes), with one compaction in it. */

/** The session's id and its JSONL text, as Claude Code would have written it working in `cwd`. */
export function claudeCodeSession(cwd: string): { sessionId: string; lines: string } {
  const sessionId = "5f0c2a8e-7d41-4b6a-9e3f-1c2d3e4f5a6b";
  const base = { sessionId, cwd, version: "2.1.39", isSidechain: false, userType: "external" };
  let clock = Date.parse("2026-11-30T09:00:00.000Z");
  let previous: string | null = null;
  const line = (uuid: string, fields: Record<string, unknown>): string => {
    const text = JSON.stringify({
      ...base,
      parentUuid: previous,
      uuid,
      timestamp: new Date(clock).toISOString(),
      ...fields,
    });
    previous = uuid;
    clock += 4_000;
    return text;
  };
  const assistant = (id: string, content: unknown[]) => ({
    type: "assistant",
    message: {
      id,
      role: "assistant",
      model: "claude-sonnet-4-5",
      content,
      usage: { input_tokens: 900, output_tokens: 40 },
    },
  });
  const result = (callId: string, content: string) => ({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content }] },
  });
  const lines = [
    line("u1", { type: "user", message: { role: "user", content: "The date parser rejects 2026-02-29. Fix it." } }),
    // One assistant message written as two lines (a text block, then a tool call), merged by message.id.
    line("a1", assistant("msg_01", [{ type: "text", text: "Let me run the parser's tests." }])),
    line(
      "a2",
      assistant("msg_01", [{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "npm test" } }]),
    ),
    line("u2", result("toolu_01", "FAIL parse.test.ts > leap years: expected 2026-02-29 to be invalid")),
    line(
      "a3",
      assistant("msg_02", [{ type: "text", text: "2026 is no leap year: the test is right, the input is wrong." }]),
    ),
    line("b1", {
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      compactMetadata: { trigger: "manual", preTokens: 1200 },
    }),
    line("u3", {
      type: "user",
      isCompactSummary: true,
      message: {
        role: "user",
        content: "Summary: the user reported 2026-02-29 rejected; tests show 2026 is not a leap year.",
      },
    }),
    line("u4", { type: "user", message: { role: "user", content: "Then make the error message say so." } }),
    line("a4", assistant("msg_03", [{ type: "text", text: "Done: it now says “2026 is not a leap year”." }])),
  ];
  return { sessionId, lines: `${lines.join("\n")}\n` };
}
