/** A tool-heavy agent for the examples: each turn is a user request, a shell call, its output and a reply. */
import type { Session } from "palimpsest";

const WORDS = ["alpha", "build", "cache", "delta", "error:", "src/app.ts", "0x1f", "passed", "failed", "retry"];

/** A tool output of about `tokens` tokens of varied text. */
export function toolOutput(n: number, tokens: number): string {
  return Array.from({ length: tokens }, (_, i) => WORDS[(i * 7 + n) % WORDS.length]).join(" ");
}

/** Runs turns `from` to `from + count - 1` on `session`, each with a tool output of about `tokens` tokens. */
export async function runTurns(session: Session, from: number, count: number, tokens = 1_500): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await session.append(
      [
        { role: "user", content: `step ${n}: run the build` },
        { role: "assistant", content: "running", toolCalls: [{ id: `c${n}`, name: "shell", arguments: `{"n":${n}}` }] },
        { role: "tool", toolCallId: `c${n}`, content: toolOutput(n, tokens) },
        { role: "assistant", content: `step ${n} done` },
      ],
      { turnId: `turn${n}` },
    );
    await session.completeTurn(`turn${n}`);
  }
}
