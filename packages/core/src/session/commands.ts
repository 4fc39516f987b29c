import type { CompactionFailed, MessagesSuperseded, SessionHandedOff, SessionStarted, Usage } from "../events/index.ts";
import type { Message } from "../messages/message.ts";

/** A message to append, with its token count already measured by the session's TokenCounter. */
export interface CountedMessage {
  message: Message;
  tokens: number;
}

/** A tool output to show trimmed from the start: `stub` (same tool call id) stands for `targetId` in the view. */
export interface InsertionTrim {
  targetId: string;
  stub: CountedMessage;
}

/** What a caller can ask of a session. The decider turns each into events or a typed error. */
export type SessionCommand =
  | { type: "start"; data: SessionStarted }
  | {
      type: "append-messages";
      messages: readonly CountedMessage[];
      turnId?: string;
      /** Trimmed copies of tool outputs in this batch, recorded by a "trim" supersede in the same append. */
      trims?: readonly InsertionTrim[];
    }
  | { type: "complete-turn"; turnId: string; usage?: Usage }
  | { type: "supersede"; data: MessagesSuperseded }
  | { type: "record-compaction-failure"; data: CompactionFailed }
  | { type: "hand-off"; toSessionId: string; reason?: string; dropped?: SessionHandedOff["dropped"] };
