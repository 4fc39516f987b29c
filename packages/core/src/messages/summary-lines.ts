import { capText, firstLine } from "./cut.ts";
import type { ToolCall } from "./message.ts";
import { toolArguments } from "./tool-call-kinds.ts";

/**
 * The lines of the offline summary that its items do not make: the current state, a failed call's outcome
 * and the recovery pointer. The summarizer writes them with these functions and cost-optimal's summary need
 * (compaction/summary-need.ts) sizes them with the same ones: here, below both folders.
 */

/** How the state's line holding the last assistant message starts. */
export const LAST_MESSAGE = "Last assistant message:";
/** The last assistant text is kept up to this many characters on its state line (head and tail). */
const STATE_CHARS = 900;
/** The state's "Last assistant message:" line is shortened to this (label included) first when over budget. */
export const SHORT_STATE_CHARS = 400;
/** A one-line item (a constraint, an error line, the state's shorter lines) is kept up to this many characters. */
export const LINE_CHARS = 200;
/** A failed call's outcome, the first line of its output, is kept up to this many characters. */
const OUTCOME_CHARS = 100;
/** A sentence of the assistant that says what comes next. */
const NEXT_STEP = /\b(?:next|then|now I|I'll|I will|let me|going to|remaining|still need|todo)\b/i;

/** The recovery section's line on how to read superseded messages (the real CLI commands, docs/cli.md). */
export const HOW_TO_EXPAND =
  "To read them: `palimpsest history <session> --json` (find these ids in a compaction's targets), then `palimpsest expand <session> <compaction-id> --deep`.";

/** The state's line holding the last assistant text (capped), as the summary writes it given room. */
export function lastMessageLine(lastText: string): string {
  return `${LAST_MESSAGE} ${capText(lastText, STATE_CHARS)}`;
}

/** The state's last-message line as a summary over budget writes it (shortened first, never dropped). */
export function shortLastMessageLine(line: string): string {
  return capText(line, SHORT_STATE_CHARS);
}

/** What a failed call's command line says after its label: the first line of its output. */
export function failedOutcome(output: string): string {
  return `: ${firstLine(output, OUTCOME_CHARS)}`;
}

/** The todo list a `TodoWrite`-style call sets, as one line, or undefined for any other call. */
export function todoLine(call: ToolCall): string | undefined {
  if (!/todo/i.test(call.name)) return undefined;
  const todos = toolArguments(call)?.todos;
  if (!Array.isArray(todos)) return undefined;
  const items = todos.map((t) => {
    const todo = (t ?? {}) as { content?: unknown; status?: unknown };
    return `[${String(todo.status ?? "?")}] ${String(todo.content ?? "")}`;
  });
  return `Todo: ${capText(items.join("; "), 600, true)}`;
}

/**
 * The current state: the last assistant text (capped), the last todo list, the calls still without a
 * result, and the next step the text names (unless the text is short enough never to be shortened: it
 * says it already). The first line is the last-message line when there is a last text.
 */
export function currentState(lastText: string, todo: string | undefined, pending: readonly string[]): string[] {
  const state: string[] = [];
  const line = lastMessageLine(lastText);
  if (lastText !== "") state.push(line);
  if (todo !== undefined) state.push(todo);
  if (pending.length > 0) state.push(`In progress (no result yet): ${capText(pending.join("; "), LINE_CHARS, true)}`);
  const next = lastText
    .split(/\n+|(?<=[.!?:])\s+/)
    .filter((s) => NEXT_STEP.test(s))
    .at(-1);
  // A line short enough never to be shortened already says the next step it holds.
  if (next !== undefined && line.length > SHORT_STATE_CHARS && next.trim() !== lastText)
    state.push(`Next step: ${capText(next.trim(), LINE_CHARS, true)}`);
  return state;
}

/** "1 message", "3 messages", "1 earlier summary", "2 earlier summaries". */
function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The head of a recovery line: `Superseded 3 messages and 1 earlier summary in 2 compactions`. */
export function supersededHead(messages: number, summaries: number, compactions: number): string {
  const also = summaries > 0 ? ` and ${counted(summaries, "earlier summary", "earlier summaries")}` : "";
  const over = compactions > 1 ? ` in ${compactions} compactions` : "";
  return `Superseded ${counted(messages, "message", "messages")}${also}${over}`;
}

/**
 * The recovery line of one span: how many messages it supersedes and how many earlier summaries with
 * them (its targets, counted apart), first … last message id; undefined for none.
 */
export function supersededLine(messages: readonly { id: string }[], summaries = 0): string | undefined {
  const first = messages[0]?.id;
  if (first === undefined) return undefined;
  const last = messages.at(-1)?.id ?? first;
  const ids = messages.length === 1 ? first : `${first} … ${last}`;
  return `${supersededHead(messages.length, summaries, 1)}: ${ids}`;
}
