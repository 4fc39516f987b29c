import type { ImportedSession, ImportItem, Usage } from "@palimpsest/core";

/** Shape of a generated agent session: how many steps, and how big its tool outputs are. */
export interface GeneratedShape {
  steps: number;
  /** Approximate tokens of each unprotected (`shell`) tool output. */
  shellTokens: number;
  /** Approximate tokens of each protected (`read_file`) tool output. */
  readTokens: number;
  /** Insert a source compaction item before this step (for the usage comparison). */
  compactionBeforeStep?: number;
  /** Attach a synthetic provider usage to every assistant message. */
  usage?: boolean;
}

const WORDS = ["alpha", "build", "cache", "delta", "error:", "src/app.ts", "0x1f", "passed", "failed", "retry"];

/** Roughly `tokens` tokens of varied, deterministic text. */
function text(seed: number, tokens: number): string {
  const words = Array.from({ length: tokens }, (_, i) => WORDS[(i * 7 + seed * 3) % WORDS.length]);
  return `output of step ${seed}: ${words.join(" ")}`;
}

/**
 * A deterministic agent session: each step is a user request, an assistant calling `shell` and
 * `read_file` (every third step only `read_file`), their results, and a short assistant reply.
 */
export function generatedSession(shape: GeneratedShape, externalId = "generated"): ImportedSession {
  const items: ImportItem[] = [];
  const usage = (n: number): { usage?: Usage } =>
    shape.usage === true ? { usage: { promptTokens: 1_000 * (n + 1), completionTokens: 20, cacheReadTokens: 0 } } : {};
  for (let n = 0; n < shape.steps; n++) {
    if (n === shape.compactionBeforeStep) {
      const summary = {
        id: `summary${n}`,
        role: "user" as const,
        content: [{ type: "text" as const, text: "so far" }],
      };
      items.push({ kind: "compaction", summary, trigger: "auto" });
    }
    const readOnly = n % 3 === 2;
    const calls = [
      ...(readOnly ? [] : [{ id: `s${n}`, name: "shell", arguments: `{"cmd":"make ${n}"}` }]),
      { id: `r${n}`, name: "read_file", arguments: `{"path":"src/f${n}.ts"}` },
    ];
    items.push(
      {
        kind: "message",
        message: { id: `u${n}`, role: "user", content: [{ type: "text", text: `step ${n}: go on` }] },
      },
      {
        kind: "message",
        message: {
          id: `a${n}`,
          role: "assistant",
          content: [{ type: "text", text: `working on ${n}` }],
          toolCalls: calls,
        },
        ...usage(2 * n),
      },
      ...calls.map(
        (call): ImportItem => ({
          kind: "message",
          message: {
            id: `t${call.id}`,
            role: "tool",
            toolCallId: call.id,
            name: call.name,
            content: [{ type: "text", text: text(n, call.name === "shell" ? shape.shellTokens : shape.readTokens) }],
          },
        }),
      ),
      {
        kind: "message",
        message: { id: `d${n}`, role: "assistant", content: [{ type: "text", text: `step ${n} done` }] },
        ...usage(2 * n + 1),
      },
    );
  }
  return {
    externalId,
    format: "openai",
    items,
    repairs: { syntheticResults: 0, orphanResults: 0, renamedCalls: 0, renamedMessages: 0, skippedEmpty: 0 },
  };
}
