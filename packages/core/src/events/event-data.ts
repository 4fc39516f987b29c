import { z } from "zod";
import { IdSchema } from "../input/id-schema.ts";
import { acceptingValidated } from "../input/validated.ts";
import { MessageSchema } from "../messages/message.ts";

/** Tokenizer encodings a session can be counted with. */
export const EncodingSchema = z.enum(["o200k_base", "cl100k_base"]);
/** A tokenizer encoding name. */
export type Encoding = z.infer<typeof EncodingSchema>;

/**
 * How two sessions are related: a handoff/rotation successor, a subagent thread, or a fork (a branch
 * that began with the parent's view as it stood at seq `atSeq`).
 */
export const LinkSchema = z.object({
  sessionId: IdSchema,
  relation: z.enum(["handoff", "subagent", "fork"]),
  atSeq: z.number().int().positive().optional(),
});

/** A session began: what model and tokenizer it runs with, and where it came from. */
export const SessionStartedSchema = z.object({
  model: z.string().optional(),
  encoding: EncodingSchema,
  contextWindow: z.number().int().positive().optional(),
  profile: z.string().optional(),
  title: z.string().optional(),
  parent: LinkSchema.optional(),
  source: z.object({ format: z.string(), file: z.string().optional(), externalId: z.string().optional() }).optional(),
  /**
   * Per-session switches: `microCompact: false` turns per-turn micro-compaction off for this session
   * alone, `precompact: false` background pre-compaction.
   */
  settings: z.object({ microCompact: z.boolean().optional(), precompact: z.boolean().optional() }).optional(),
});

/**
 * A message of an event: MessageSchema, but a message validated already where it entered (parseMessage)
 * is taken as it is.
 */
const EventMessageSchema = acceptingValidated(MessageSchema);

/** A message joined the log, with its token count measured once with the session's tokenizer. */
export const MessageAppendedSchema = z.object({
  message: EventMessageSchema,
  tokens: z.number().int().nonnegative(),
  turnId: IdSchema.optional(),
});

/** Token usage a provider reported for one turn. */
export const UsageSchema = z.object({
  promptTokens: z.number().int().nonnegative().optional(),
  completionTokens: z.number().int().nonnegative().optional(),
  cacheReadTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  /** Of the cache writes, those with a 1-hour lifetime (Anthropic's `ephemeral_1h_input_tokens`); the rest are 5-minute. */
  cacheWrite1hTokens: z.number().int().nonnegative().optional(),
});
/** Token usage a provider reported for one turn. */
export type Usage = z.infer<typeof UsageSchema>;

/** A turn ended, with the provider's real usage when known. */
export const TurnCompletedSchema = z.object({
  turnId: IdSchema,
  usage: UsageSchema.optional(),
});

/** The ways a compaction can supersede messages. */
export const CompactionModeSchema = z.enum([
  "summary",
  "prune",
  "micro",
  "defrag",
  "trim",
  "retract",
  "precompact",
  "import",
]);
/** A compaction mode. */
export type CompactionMode = z.infer<typeof CompactionModeSchema>;

/** What a replacement message is: a summary, a rolling-summary marker, or a stub standing for one message. */
export const ReplacementKindSchema = z.enum(["summary", "rolling-summary", "stub"]);

/** A message a compaction puts into the view, placed where `at` (default: the first target) stood. */
export const ReplacementSchema = z.object({
  kind: ReplacementKindSchema,
  message: EventMessageSchema,
  tokens: z.number().int().nonnegative(),
  at: IdSchema.optional(),
});
/** A message a compaction puts into the view. */
export type Replacement = z.infer<typeof ReplacementSchema>;

/** The view a compaction was computed from: committed only while it is still current. */
export const BasisSchema = z.object({
  viewVersion: z.number().int().nonnegative(),
  prefixHash: z.string().optional(),
});

/** Who produced a compaction. */
export const ProducerSchema = z.object({
  policy: z.string().min(1),
  profile: z.string().optional(),
  summarizerModel: z.string().optional(),
  promptVersion: z.string().optional(),
});

/** What a compaction cost and reclaimed. */
export const CompactionStatsSchema = z.object({
  tokensBefore: z.number().int().nonnegative(),
  tokensAfter: z.number().int().nonnegative(),
  /** The summarizer's input tokens, the cache's share included (SummaryResult.inputTokens). */
  auxTokensIn: z.number().int().nonnegative().optional(),
  auxTokensOut: z.number().int().nonnegative().optional(),
  /** Of auxTokensIn, those read from the provider's prompt cache; absent when not reported (events before it too). */
  auxTokensCacheRead: z.number().int().nonnegative().optional(),
  /** Of auxTokensIn, those written to the provider's prompt cache; absent when not reported. */
  auxTokensCacheWrite: z.number().int().nonnegative().optional(),
  durationMs: z.number().nonnegative().optional(),
});

/** The compaction event: `targets` leave the view, `replacements` take their place. */
export const MessagesSupersededSchema = z.object({
  compactionId: IdSchema,
  targets: z.array(IdSchema).min(1),
  replacements: z.array(ReplacementSchema),
  mode: CompactionModeSchema,
  basis: BasisSchema,
  producer: ProducerSchema,
  stats: CompactionStatsSchema,
  trigger: z.enum(["manual", "auto", "import", "background"]),
});

/** Why a summary could not be produced. */
export const FailureReasonSchema = z.enum([
  "timeout",
  "auth",
  "rate-limited",
  "empty",
  "truncated",
  "refused",
  "malformed",
  "other",
]);

/** A compaction was attempted and failed; nothing was superseded. */
export const CompactionFailedSchema = z.object({
  mode: CompactionModeSchema,
  reason: FailureReasonSchema,
  attempt: z.number().int().positive(),
  targets: z.array(IdSchema),
  detail: z.string().optional(),
  /** How long the provider asked to wait (rate limits), in milliseconds. */
  retryAfterMs: z.number().int().nonnegative().optional(),
  /** Which summarizer configuration failed (model and prompt version, never a key): auth failures hold until it changes. */
  configKey: z.string().optional(),
});

/** This session was handed off (rotated) to a successor that continues it. */
export const SessionHandedOffSchema = z.object({
  toSessionId: IdSchema,
  reason: z.string().optional(),
  /**
   * What a portable hand-off left out of the carried view (provider-specific data another vendor's
   * model cannot take): how many messages lost their opaque `reasoning` (signed thinking blocks) and
   * their `metadata` (provider ids, source items).
   */
  dropped: z.object({ reasoning: z.number().int().nonnegative(), metadata: z.number().int().nonnegative() }).optional(),
});

/**
 * The session's content was erased (docs/erasure.md): every earlier event of it now holds only its
 * skeleton (see erase-event.ts). Written once, in the transaction that redacted them; the last event of
 * the session, which takes no writes after it.
 */
export const SessionErasedSchema = z.object({
  /** Why it was erased, as the operator gave it (a ticket id, "retention"): never session content. */
  reason: z.string().optional(),
  /** How many events were rewritten to their skeletons (those before this one). */
  events: z.number().int().nonnegative(),
  /** How many messages (appended or placed by a compaction) became tombstones. */
  messages: z.number().int().nonnegative(),
});
