/** One exchange `n` of a tool-using agent (user, assistant calling a tool, its result, a reply), in several scripts. */
export function exchange(n: number) {
  return [
    { id: `u${n}`, role: "user" as const, content: `question ${n} — ünïcødé 👩🏽‍💻 עִבְרִית` },
    {
      id: `a${n}`,
      role: "assistant" as const,
      content: `let me look (${n})`,
      toolCalls: [{ id: `c${n}`, name: "grep", arguments: JSON.stringify({ pattern: `p${n}` }) }],
    },
    { id: `t${n}`, role: "tool" as const, toolCallId: `c${n}`, content: `match ${n}\n`.repeat(20) },
    { id: `r${n}`, role: "assistant" as const, content: `answer ${n}` },
  ];
}

/**
 * Turn `n` of an agent at work: the prompt (`step n` unless given), an assistant calling `shell`, the
 * tool's `output`, and the reply `step n done`; ids `u`, `a`, `c` (the call), `t`, `r` with `n`.
 */
export function toolStep(n: number, output: string, prompt = `step ${n}`) {
  return [
    { id: `u${n}`, role: "user" as const, content: prompt },
    {
      id: `a${n}`,
      role: "assistant" as const,
      content: "on it",
      toolCalls: [{ id: `c${n}`, name: "shell", arguments: "{}" }],
    },
    { id: `t${n}`, role: "tool" as const, toolCallId: `c${n}`, content: output },
    { id: `r${n}`, role: "assistant" as const, content: `step ${n} done` },
  ];
}
