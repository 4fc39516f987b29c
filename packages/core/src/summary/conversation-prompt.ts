import { SUMMARY_PREFIX } from "../compaction/summary-note.ts";
import { type Message, messageText } from "../messages/message.ts";
import type { SummaryConversation, SummaryRequest } from "../ports/summarizer.ts";
import { budgetWords, recoveryLines, SUMMARY_FORMAT, SUMMARY_PURPOSE, SUMMARY_RULES } from "./prompt.ts";
import { DEFAULT_SUMMARY_CAPS, type SummaryCaps } from "./serialize.ts";
import { earlierSummaries } from "./summary-format.ts";

/**
 * Where a summarizer's conversation ends (SummaryConversation.messages): just before the view's last
 * assistant message, so the request is the agent's last one, whose cache entry the provider has just
 * written or read, and the messages that came after it (the reply and its tool results, which the agent's
 * next request writes again after the compaction anyway) are not written to the cache twice; at the span's
 * end when the span runs past that point.
 */
export function conversationEnd(view: readonly { message: Pick<Message, "role"> }[], spanEnd: number): number {
  const lastReply = view.findLastIndex((e) => e.message.role === "assistant");
  return Math.max(spanEnd, lastReply < 0 ? view.length : lastReply);
}

/** Characters of a message's first line quoted to point at it. */
const QUOTE_CHARS = 80;

/** The summary note's opening mark, which every earlier summary in a conversation begins with. */
const SUMMARY_MARK = SUMMARY_PREFIX.slice(0, SUMMARY_PREFIX.indexOf("]") + 1);

/** How a message is pointed at: its role and the start of its first line, or its tool calls or the call it answers. */
function pointer(message: Message): string {
  const line = messageText(message).trim().split("\n")[0]?.trim() ?? "";
  const quote = JSON.stringify(line.length > QUOTE_CHARS ? line.slice(0, QUOTE_CHARS) : line);
  if (message.role === "tool") {
    const call = `the result of tool call \`${message.toolCallId ?? ""}\``;
    return line === "" ? call : `${call}, which begins ${quote}`;
  }
  if (line !== "") return `the ${message.role} message that begins ${quote}`;
  const calls = (message.toolCalls ?? []).map((c) => `\`${c.name}\` (call \`${c.id}\`)`);
  if (calls.length > 0) return `the ${message.role} message that calls ${calls.join(", ")}`;
  return `the ${message.role} message with no text`;
}

/** "first", "second", … "tenth", then "11th". */
function ordinal(n: number): string {
  const words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  return words[n - 1] ?? `${n}th`;
}

/** Points at `messages[index]` unambiguously: its pointer, with its rank among the messages that share it. */
function pointAt(messages: readonly Message[], index: number): string {
  const own = pointer(messages[index] as Message);
  let rank = 0;
  let total = 0;
  messages.forEach((m, i) => {
    if (pointer(m) !== own) return;
    total++;
    if (i <= index) rank++;
  });
  return total > 1 ? `${own} (the ${ordinal(rank)} of the ${total} messages that match this)` : own;
}

/** The span's bounds in words the model can follow: the message it starts at and the one it stops before. */
function spanLines(conversation: SummaryConversation): string {
  const { messages, start, end } = conversation;
  const from = `The span starts at ${pointAt(messages, start)}`;
  const to =
    end >= messages.length
      ? "and runs through the last message above, just before this request."
      : `and ends just before ${pointAt(messages, end)}: that message and everything after it are not part of the span.`;
  return `${from} ${to} The messages before the span and after it stay in the conversation verbatim: summarize only the span, reading the rest only to understand it.`;
}

/** The ids of the span's user messages, which the conversation does not show, for the User Requests headers. */
function requestIdsLine(request: SummaryRequest): string[] {
  const ids = request.messages.filter((m) => m.role === "user").map((m) => `\`${m.id}\``);
  if (ids.length === 0) return [];
  return [
    `The conversation does not show message ids: the span's user messages, in order, are ${ids.join(", ")}, for the "[request N · <message id>]" lines.`,
  ];
}

/** What the span's earlier summaries mean for the new one: fold them in, their older messages first. */
function earlierLines(request: SummaryRequest): string[] {
  const summaries = earlierSummaries(request);
  if (summaries === 0) return [];
  const which = summaries === 1 ? "1 earlier summary" : `${summaries} earlier summaries`;
  const lines = [
    `The span holds ${which} (a message beginning "${SUMMARY_MARK}"): that is the previous summary. Write one updated summary that folds it in section by section, never nested inside the new one or quoted as a block.`,
  ];
  if ((request.previousSummaryAt ?? 0) > 0)
    lines.push(
      "The span's messages before the first earlier summary happened before everything it covers: put their items first.",
    );
  return lines;
}

/**
 * The instruction a summarizer that reads the conversation (SummaryRequest.conversation) appends to the
 * agent's own request, as its last user turn: stop, call no tool, and write the summary of exactly the
 * span (`messages[start..end)`, named by the start of the message it starts at and of the one it stops
 * before), folding in an earlier summary among them, in buildSummaryPrompt's format, recovery lines, cap
 * and budget. The conversation is not redacted (it is what the agent sends its provider), so the
 * instruction asks for secrets to be left out; the summarizer redacts the answer as well.
 */
export function buildConversationInstruction(
  request: SummaryRequest & { conversation: SummaryConversation },
  caps: SummaryCaps = DEFAULT_SUMMARY_CAPS,
): string {
  const parts = [
    `[SUMMARY REQUEST] Stop the conversation here: do not answer it, do not continue the task and do not call any tool (the tools are listed only because the conversation used them). Reply with the working-memory summary of one span of the conversation above, and nothing else. ${SUMMARY_PURPOSE}`,
    [spanLines(request.conversation), ...earlierLines(request), ...requestIdsLine(request)].join("\n"),
    `Below, "the transcript" is the span and "the previous summary" the earlier summary in it, if any.\n\n${SUMMARY_FORMAT}`,
    [
      "Rules:",
      SUMMARY_RULES.specific,
      SUMMARY_RULES.update,
      "- Never write a secret (an API key, a token, a password, a credential in a URL): put [REDACTED] in its place.",
      SUMMARY_RULES.budget,
      SUMMARY_RULES.output,
    ].join("\n"),
    `<recovery-lines>\n${recoveryLines(request)}\n</recovery-lines>`,
    `Write the summary of the span now, ${budgetWords(request.maxOutputTokens)}; a user request over ${caps.messageChars} characters may be cut in its middle where marked "[… N chars omitted …]".`,
  ];
  return parts.join("\n\n");
}
