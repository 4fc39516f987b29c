import { randomUUID } from "node:crypto";
import type { StoredEvent } from "@palimpsest/core";
import { type MessageInput, type Session, toMessage } from "@palimpsest/store";

/** A withdrawal of live messages (see the runtime's `session.rewrite`): targets out, replacements in their place, then appends. */
export interface HistoryRewrite {
  mode: "retract" | "import";
  targets: readonly string[];
  replacements?: readonly MessageInput[];
  append?: readonly MessageInput[];
  turnId?: string;
  idempotencyKey?: string;
  policy?: string;
}

/**
 * Applies a rewrite to the session: the one place the adapter supersedes, so moving to the runtime's
 * atomic `session.rewrite` is one edit. Until then: a supersede (replacements as stubs, or summaries for
 * an import) and then an append of `append` under the key, two store appends.
 */
export async function rewriteHistory(session: Session, rewrite: HistoryRewrite): Promise<StoredEvent[]> {
  const counter = await session.tokenCounter();
  const key = rewrite.idempotencyKey;
  const replacements = (rewrite.replacements ?? []).map((input, i) => {
    const message = toMessage(input, `replacements[${i}]`, key === undefined ? undefined : `${key}#r${i}`);
    return {
      kind: rewrite.mode === "import" ? ("summary" as const) : ("stub" as const),
      message,
      tokens: counter.countMessage(message),
    };
  });
  const targets = new Set(rewrite.targets);
  const removed = session.state.live.reduce((n, e) => (targets.has(e.message.id) ? n + e.tokens : n), 0);
  const tokensBefore = session.state.liveTokens;
  const events = await session.supersede({
    compactionId: key === undefined ? randomUUID() : `${key}#c`,
    targets: [...rewrite.targets],
    replacements,
    mode: rewrite.mode,
    basis: { viewVersion: session.state.viewVersion },
    producer: { policy: rewrite.policy ?? rewrite.mode },
    stats: { tokensBefore, tokensAfter: tokensBefore - removed + replacements.reduce((n, r) => n + r.tokens, 0) },
    trigger: rewrite.mode === "import" ? "import" : "manual",
  });
  if (rewrite.append === undefined || rewrite.append.length === 0) return events;
  const options = {
    ...(rewrite.turnId === undefined ? {} : { turnId: rewrite.turnId }),
    ...(key === undefined ? {} : { idempotencyKey: key }),
  };
  return [...events, ...(await session.append(rewrite.append, options))];
}
