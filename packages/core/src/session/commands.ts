import type { CompactionFailed, MessagesSuperseded, SessionStarted, Usage } from "../events/index.ts";
import type { Message } from "../messages/message.ts";

/** A message to append, with its token count already measured by the session's TokenCounter. */
export interface CountedMessage {
  message: Message;
  tokens: number;
}

/** What a caller can ask of a session. The decider turns each into events or a typed error. */
export type SessionCommand =
  | { type: "start"; data: SessionStarted }
  | { type: "append-messages"; messages: readonly CountedMessage[]; turnId?: string }
  | { type: "complete-turn"; turnId: string; usage?: Usage }
  | { type: "supersede"; data: MessagesSuperseded }
  | { type: "record-compaction-failure"; data: CompactionFailed }
  | { type: "hand-off"; toSessionId: string; reason?: string };
