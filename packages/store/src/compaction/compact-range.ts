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
import { commitSupersede, measuredAtPlan } from "./execute-compaction.ts";

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
 * the role that keeps alternation (the same rule as the policies' summaries). Conflicts (a concurrent compaction) surface as ConcurrencyConflict.
 */
export async function compactRange(session: Session, request: CompactRangeRequest): Promise<StoredEvent[]> {
  checkRequest(request);
  const { live } = session.state;
  const from = indexOfLive(live, request.fromId);
  let to = indexOfLive(live, request.toId);
  if (to < from) throw new ValidationError("--from comes after --to in the view", [`from ${from}, to ${to}`]);
  while (live[to + 1]?.message.role === "tool") to++;
  if (request.summary.trim().length === 0) throw new ValidationError("the summary is empty", ["summary: empty"]);
  const targets = live.slice(from, to + 1).map((e) => e.message.id);
  const measured = measuredAtPlan(session.state, targets); // before the await below
  const summary = {
    id: uuidv7(),
    role: chooseSummaryRole(live[from - 1]?.message),
    content: [{ type: "text" as const, text: request.summary }],
  };
  const tokens = (await session.tokenCounter()).countMessage(summary);
  return [
    await commitSupersede(session, {
      compactionId: uuidv7(),
      mode: "summary",
      trigger: "manual",
      producer: { policy: request.policy ?? "explicit" },
      targets,
      replacements: [{ kind: "summary", message: summary, tokens }],
      ...measured,
    }),
  ];
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
