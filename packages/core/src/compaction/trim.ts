import { type Message, messageText } from "../messages/message.ts";
import { derivedId } from "./derived-id.ts";
import type { CountTokens } from "./policy-types.ts";
import { safeCut } from "./safe-cut.ts";
import { stubMessage } from "./tool-stub.ts";

/** When to trim a tool output as it is appended, and how much of it the trimmed copy keeps. */
export interface TrimConfig {
  /** Outputs over this many tokens are trimmed (a profile's `trimTokens`). */
  maxTokens: number;
  /** Share of `maxTokens` the kept head and tail take together (default 0.5). */
  keepRatio?: number;
}

/** The trimmed copy of a tool output: what the view shows instead of the full text the log keeps. */
export interface TrimPlan {
  message: Message;
  tokens: number;
  elidedChars: number;
}

const SHRINK_ATTEMPTS = 4;

/**
 * Trims a tool output over `config.maxTokens`: same tool call id, its head and tail kept, and a line
 * saying how much was elided and that `palimpsest expand` returns the full text. The runtime appends the
 * full message and a supersede (mode "trim") placing this copy in the same append. Undefined: keep as is.
 */
export function planTrim(
  message: Message,
  tokens: number,
  config: TrimConfig,
  countTokens: CountTokens,
): TrimPlan | undefined {
  if (message.role !== "tool" || tokens <= config.maxTokens) return undefined;
  const text = messageText(message);
  const images = message.content.filter((p) => p.type === "image").length;
  let keepTokens = Math.floor(config.maxTokens * (config.keepRatio ?? 0.5));
  for (let attempt = 0; attempt < SHRINK_ATTEMPTS; attempt++, keepTokens = Math.floor(keepTokens / 2)) {
    const keepChars = Math.floor((keepTokens * text.length) / tokens);
    const head = safeCut(text, Math.ceil(keepChars / 2));
    const tail = safeCut(text, text.length - Math.floor(keepChars / 2));
    const elidedChars = Math.max(0, tail - head);
    if (elidedChars === 0 && images === 0) return undefined;
    const note = elisionNote(elidedChars, tokens - keepTokens, images);
    const trimmed = stubMessage(
      derivedId(message.id, "trim"),
      message,
      `${text.slice(0, head)}${note}${text.slice(Math.max(head, tail))}`,
    );
    const trimmedTokens = countTokens(trimmed);
    if (trimmedTokens >= tokens) return undefined;
    if (trimmedTokens <= config.maxTokens) return { message: trimmed, tokens: trimmedTokens, elidedChars };
  }
  return undefined;
}

function elisionNote(chars: number, tokens: number, images: number): string {
  const imageNote = images > 0 ? ` and ${images} image${images === 1 ? "" : "s"}` : "";
  return `\n\n[… ${chars.toLocaleString("en-US")} characters (about ${tokens.toLocaleString("en-US")} tokens)${imageNote} elided from this tool output; \`palimpsest expand\` returns the full text …]\n\n`;
}
