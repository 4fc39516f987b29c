import type { LiveEntry } from "../session/session-state.ts";
import type { PrecompactionCandidate } from "./candidate.ts";
import { prefixHash, systemPromptHash } from "./prefix-hash.ts";

/** Why a candidate cannot be used on the current view. */
export type CandidateMiss =
  | "other-session"
  | "handed-off"
  | "summarizer-changed"
  | "system-prompt-changed"
  | "prefix-changed"
  | "span-changed";

/** The current view a candidate is checked against, and the targets a compaction of it would replace. */
export interface CandidateContext {
  sessionId: string;
  view: readonly LiveEntry[];
  handedOffTo: string | undefined;
  summarizer: { model: string; promptVersion: string };
  /** The system prompt, when the agent keeps it outside the transcript (as given when the candidate was planned). */
  systemPrompt?: string;
  /** Ids a compaction of this view would replace, in view order. */
  targets: readonly string[];
}

/** A hit (the candidate covers the first `covered` targets) or a miss with its reason. */
export type CandidateVerdict = { hit: true; covered: number } | { hit: false; reason: CandidateMiss; detail: string };

/**
 * Validates a candidate's key against the current view: same session, not handed off, same summarizer
 * model and prompt version, same system prompt, its last message still live with the exact prefix before
 * it unchanged (an undo, a retry or a compaction changes it), and its targets the start of today's.
 */
export function validateCandidate(candidate: PrecompactionCandidate, context: CandidateContext): CandidateVerdict {
  const { key } = candidate;
  const miss = (reason: CandidateMiss, detail: string): CandidateVerdict => ({ hit: false, reason, detail });
  if (key.sessionId !== context.sessionId) return miss("other-session", `candidate of session ${key.sessionId}`);
  if (context.handedOffTo !== undefined) return miss("handed-off", `handed off to ${context.handedOffTo}`);
  const { model, promptVersion } = context.summarizer;
  if (key.summarizerModel !== model || key.promptVersion !== promptVersion) {
    return miss(
      "summarizer-changed",
      `written by ${key.summarizerModel}@${key.promptVersion}, now ${model}@${promptVersion}`,
    );
  }
  if (key.systemPromptHash !== systemPromptHash(context.view, context.systemPrompt)) {
    return miss("system-prompt-changed", "the system prompt changed");
  }
  const last = context.view.findIndex((e) => e.message.id === key.lastMessageId);
  if (last < 0) return miss("prefix-changed", `its last message ${key.lastMessageId} is no longer live`);
  if (prefixHash(context.view.slice(0, last + 1)) !== key.prefixHash) {
    return miss("prefix-changed", "a message before its last one changed");
  }
  const covered = candidate.targets.length;
  if (covered > context.targets.length || candidate.targets.some((id, i) => context.targets[i] !== id)) {
    return miss("span-changed", "the compaction's span no longer starts with the candidate's prefix");
  }
  return { hit: true, covered };
}
