import type { Encoding } from "../events/event-data.ts";
import type { Message } from "../messages/message.ts";

/**
 * Counts the tokens a message costs in a prompt. Called once per message, when it is appended; the
 * count then travels in the event, so budget checks never re-tokenize.
 */
export interface TokenCounter {
  /** The encoding the counts are in; recorded in the session. */
  readonly encoding: Encoding;
  /** Tokens of plain text. */
  countText(text: string): number;
  /** Tokens a whole message costs in a request, including its framing, tool calls and images. */
  countMessage(message: Message): number;
  /**
   * The same count as countMessage, without holding the event loop for long: a big text is counted in
   * slices with the loop free between them. Appends use it, so a huge tool output does not stall the process.
   */
  countMessageAsync(message: Message): Promise<number>;
}
