import type { ValidationIssue } from "../errors.ts";
import { idLengthIssue } from "../input/id-limits.ts";
import { messageIdIssue } from "../messages/message-id-limits.ts";
import type { DomainEvent } from "./event-types.ts";

/**
 * The first id a validated event would store that is longer than its kind's limit (ID_LIMITS), as an
 * issue at its path in the event's data (`message.toolCalls[0].id`, `turnId`,
 * `replacements[1].message.id`); undefined when all are within them. Only ids the event creates are held
 * to a limit: the targets and anchors of a compaction name messages already in the log, whatever an older
 * version let them be. Writes check it (the decider, the store's append); reads never do, so a log stored
 * before the limits reads.
 */
export function eventIdIssue(event: DomainEvent): ValidationIssue | undefined {
  switch (event.type) {
    case "session.started":
      return idLengthIssue("session", event.data.parent?.sessionId, "parent.sessionId");
    case "message.appended":
      return messageIdIssue(event.data.message, "message") ?? idLengthIssue("turn", event.data.turnId, "turnId");
    case "turn.completed":
      return idLengthIssue("turn", event.data.turnId, "turnId");
    case "messages.superseded": {
      let issue = idLengthIssue("compaction", event.data.compactionId, "compactionId");
      for (const [i, { message }] of event.data.replacements.entries()) {
        issue ??= messageIdIssue(message, `replacements[${i}].message`);
      }
      return issue;
    }
    case "session.handed-off":
      return idLengthIssue("session", event.data.toSessionId, "toSessionId");
    case "compaction.failed":
    case "session.erased":
      return undefined;
  }
}
