import { InvariantViolation } from "../errors.ts";
import type { DomainEvent } from "../events/index.ts";
import { boundedId } from "../input/bounded-id.ts";
import { ID_LIMITS } from "../input/id-limits.ts";
import type { CountedMessage, InsertionTrim } from "./commands.ts";
import { type KnownKeys, messageKey } from "./log-keys.ts";
import type { SessionState } from "./session-state.ts";

/**
 * Decides the insertion-time trims of an append: one "trim" supersede, committed in the same append,
 * that puts each stub where its tool output stands, so no view ever held the full text. Each target
 * must be a tool result of this batch and each stub a fresh tool message answering the same call.
 */
export function decideTrims(
  state: SessionState,
  known: KnownKeys,
  batch: readonly CountedMessage[],
  trims: readonly InsertionTrim[],
): DomainEvent[] {
  if (trims.length === 0) return [];
  const byId = new Map(batch.map((m) => [m.message.id, m]));
  const seen = new Set<string>();
  for (const { targetId, stub } of trims) {
    const target = byId.get(targetId)?.message;
    const fresh = !known.has(messageKey(stub.message.id)) && !byId.has(stub.message.id) && !seen.has(stub.message.id);
    if (target?.role !== "tool" || stub.message.toolCallId !== target.toolCallId || !fresh || seen.has(targetId)) {
      throw new InvariantViolation(
        "supersede-invalid",
        `trim of ${targetId} must be a fresh stub of a tool result in the batch`,
        {
          sessionId: state.sessionId,
          ids: [targetId, stub.message.id],
        },
      );
    }
    seen.add(stub.message.id).add(targetId);
  }
  const before = state.liveTokens + batch.reduce((n, m) => n + m.tokens, 0);
  const saved = trims.reduce((n, t) => n + ((byId.get(t.targetId)?.tokens ?? 0) - t.stub.tokens), 0);
  const first = trims[0] as InsertionTrim;
  return [
    {
      type: "messages.superseded",
      data: {
        compactionId: boundedId(`trim:${first.targetId}`, ID_LIMITS.compaction),
        targets: trims.map((t) => t.targetId),
        replacements: trims.map((t) => ({
          kind: "stub",
          message: t.stub.message,
          tokens: t.stub.tokens,
          at: t.targetId,
        })),
        mode: "trim",
        basis: { viewVersion: state.viewVersion },
        producer: { policy: "insertion-trim" },
        stats: { tokensBefore: before, tokensAfter: before - saved },
        trigger: "auto",
      },
    },
  ];
}
