import {
  checkId,
  chooseSummaryRole,
  type LiveEntry,
  NotFoundError,
  type StoredEvent,
  ValidationError,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import { commitCompaction, measuredAtPlan, preparedSupersede } from "./execute-compaction.ts";

/** An explicit compaction: replace the live messages from `fromId` to `toId` with a summary text. */
export interface CompactRangeRequest {
  fromId: string;
  toId: string;
  summary: string;
  policy?: string;
}

function indexOfLive(live: readonly LiveEntry[], id: string): number {
  const index = live.findIndex((e) => e.message.id === id);
  if (index < 0) throw new NotFoundError("message", id);
  return index;
}

/**
 * Commits one explicit summary compaction over a live range. The range is widened forward over the
 * results of any tool call inside it, so a call is never split from its results; the summary takes
 * the role that keeps alternation (the same rule as the policies' summaries). Decided on the view as it is
 * when it commits: another writer's commit first makes it re-read and decide again, and only a range that
 * is no longer live (compacted meanwhile) is refused, NOT_FOUND naming the message.
 */
export async function compactRange(session: Session, request: CompactRangeRequest): Promise<StoredEvent[]> {
  checkRequest(request);
  if (request.summary.trim().length === 0) throw new ValidationError("the summary is empty", ["summary: empty"]);
  const counter = await session.tokenCounter();
  const event = await commitCompaction(session, async (state) => {
    const { live } = state;
    const from = indexOfLive(live, request.fromId);
    let to = indexOfLive(live, request.toId);
    if (to < from) throw new ValidationError("--from comes after --to in the view", [`from ${from}, to ${to}`]);
    while (live[to + 1]?.message.role === "tool") to++;
    const targets = live.slice(from, to + 1).map((e) => e.message.id);
    const summary = {
      id: uuidv7(),
      role: chooseSummaryRole(live[from - 1]?.message),
      content: [{ type: "text" as const, text: request.summary }],
    };
    const spec = {
      compactionId: uuidv7(),
      mode: "summary" as const,
      trigger: "manual" as const,
      producer: { policy: request.policy ?? "explicit" },
      targets,
      replacements: [{ kind: "summary" as const, message: summary, tokens: counter.countMessage(summary) }],
      ...measuredAtPlan(state, targets),
    };
    return preparedSupersede(state, spec, (committed) => committed);
  });
  return [event];
}

/** Checks the request before anything reads it: ids (see IdSchema), a text summary, a text policy. */
function checkRequest(request: CompactRangeRequest): void {
  checkId(request.fromId, "fromId");
  checkId(request.toId, "toId");
  for (const [field, value] of [
    ["summary", request.summary],
    ["policy", request.policy ?? ""],
  ] as const) {
    if (typeof value !== "string") {
      throw new ValidationError(`${field} must be text`, [`${field}: expected string, got ${typeof value}`], {
        path: field,
      });
    }
  }
}
