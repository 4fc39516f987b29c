import { definedFields } from "../defined-fields.ts";
import type { Replacement } from "../events/event-data.ts";
import type { MessagesSuperseded } from "../events/event-types.ts";
import type { SessionState } from "../session/session-state.ts";

/**
 * What a compaction supersedes and why; the basis and stats default from the state it is decided on.
 * The explicit token fields are for the sites that measure elsewhere: a summary counts the targets it
 * removes when it plans (before the summarizer runs), a prune plan carries its own totals, an imported
 * revision counts only its target.
 */
export interface SupersedeSpec {
  compactionId: string;
  mode: MessagesSuperseded["mode"];
  trigger: MessagesSuperseded["trigger"];
  producer: MessagesSuperseded["producer"];
  targets: readonly string[];
  /** Counted replacements (their tokens are in `tokensAfter`). */
  replacements: readonly Replacement[];
  /** Default: the state's view version. */
  basis?: MessagesSuperseded["basis"];
  /** Default: the state's live tokens. */
  tokensBefore?: number;
  /** Tokens the targets take out of the view. Default: the live targets' tokens in the state. */
  removedTokens?: number;
  /** Default: `tokensBefore − removedTokens + Σ replacement tokens`. */
  tokensAfter?: number;
  /**
   * The summarizer's tokens in and out, and of those in, the ones read from and written to the provider's
   * prompt cache (each left out when undefined).
   */
  aux?: {
    in?: number | undefined;
    out?: number | undefined;
    cacheRead?: number | undefined;
    cacheWrite?: number | undefined;
  };
  durationMs?: number;
}

/** The live tokens of `targets` in `state` (a target no longer live counts 0). */
export function liveTargetTokens(state: Readonly<SessionState>, targets: readonly string[]): number {
  const set = new Set(targets);
  return state.live.reduce((n, e) => (set.has(e.message.id) ? n + e.tokens : n), 0);
}

/** The supersede event's data for `spec` decided on `state`: pure, the one place compaction stats are computed. */
export function supersedeFor(state: Readonly<SessionState>, spec: SupersedeSpec): MessagesSuperseded {
  const tokensBefore = spec.tokensBefore ?? state.liveTokens;
  const removed = spec.removedTokens ?? liveTargetTokens(state, spec.targets);
  const added = spec.replacements.reduce((n, r) => n + r.tokens, 0);
  const { aux, durationMs } = spec;
  return {
    compactionId: spec.compactionId,
    targets: [...spec.targets],
    replacements: [...spec.replacements],
    mode: spec.mode,
    basis: spec.basis ?? { viewVersion: state.viewVersion },
    producer: spec.producer,
    stats: {
      tokensBefore,
      tokensAfter: spec.tokensAfter ?? tokensBefore - removed + added,
      ...definedFields({
        durationMs,
        auxTokensIn: aux?.in,
        auxTokensOut: aux?.out,
        auxTokensCacheRead: aux?.cacheRead,
        auxTokensCacheWrite: aux?.cacheWrite,
      }),
    },
    trigger: spec.trigger,
  };
}
