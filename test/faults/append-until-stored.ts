import { ConcurrencyConflict, type EventStore } from "@palimpsest/core";
import { userMessage } from "../contract/fixtures.ts";

/** What one writer of the two-process suite appends: `count` messages `<tag>-<i>` over `sessionIds`. */
export interface AppendPlan {
  sessionIds: string[];
  count: number;
  seed: number;
  tag: string;
}

/**
 * Appends the plan's messages one by one, each to a session picked from the seed, at the version this
 * writer last saw; a conflict (another writer got there first) is counted and the append made again at
 * the actual version. Every other error is collected and that message is not retried.
 */
export async function appendUntilStored(
  store: EventStore,
  plan: AppendPlan,
): Promise<{ conflicts: number; errors: unknown[] }> {
  let state = plan.seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const versions = new Map<string, number>();
  let conflicts = 0;
  const errors: unknown[] = [];
  for (let i = 0; i < plan.count; i++) {
    const sessionId = plan.sessionIds[Math.floor(next() * plan.sessionIds.length)] ?? "";
    for (;;) {
      const version = versions.get(sessionId) ?? (await store.getSession(sessionId))?.version ?? 0;
      try {
        const id = `${plan.tag}-${i}`;
        const result = await store.append(sessionId, [userMessage(id, id)], { expectedVersion: version });
        versions.set(sessionId, result.nextExpectedVersion);
        break;
      } catch (error) {
        if (!(error instanceof ConcurrencyConflict)) {
          errors.push(error);
          break;
        }
        conflicts++;
        versions.set(sessionId, error.details.actual);
      }
    }
  }
  return { conflicts, errors };
}
