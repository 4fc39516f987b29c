import { compactionThreshold } from "@palimpsest/core";
import { type CompactionSettings, resolveCompaction } from "../compaction/compaction-settings.ts";
import type { Session } from "../runtime/session.ts";

/** The compaction threshold a session runs under with `settings` (its own window and profile by default). */
export function sessionThreshold(session: Session, settings: CompactionSettings = {}): number {
  // Only the window, the output reserve and the profile are read: no stub is ever counted here.
  const resolved = resolveCompaction(settings, session.state, () => 0);
  return compactionThreshold(resolved.contextWindow, resolved.maxOutputTokens, resolved.profile.threshold);
}
