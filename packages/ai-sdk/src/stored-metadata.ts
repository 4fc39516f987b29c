import type { Message } from "@palimpsest/core";

/** Tool approval responses recorded on the assistant message that asked for them (see approvals.ts). */
export interface StoredApprovals {
  /** The save's tool message these parts came from (tag-encoded `tool-approval-response` parts). */
  group: string;
  parts: unknown[];
  providerOptions?: unknown;
  /** The calls of that assistant message already answered when the approvals were saved: they come first on a load. */
  answered: string[];
}

/**
 * What an adapter message keeps in `metadata.aiSdk`: the source ModelMessage verbatim (tag-encoded,
 * see value-codec.ts) for system, user and assistant messages; for a tool message, its share of the
 * source tool message's parts and the `group` that re-joins the shares on a load.
 */
export interface AiSdkMetadata {
  v: 1;
  message?: unknown;
  parts?: unknown[];
  group?: string;
  providerOptions?: unknown;
  approvals?: StoredApprovals[];
  /** The id of the UI message it was converted from (saveUIMessages, saveUIResponse). */
  ui?: string;
  /**
   * That UI message whole, as it stood when this save stored it (tag-encoded, UI-only parts and metadata
   * included): on the last message a save wrote for it, or on the asking message its approvals were
   * recorded on. loadUIMessages returns the newest of each id.
   */
  uiMessage?: unknown;
}

/** The metadata key of the adapter. */
export const METADATA_KEY = "aiSdk";

/** A message's adapter metadata, when it has some (messages from a summary, a stub or an import have none). */
export function aiSdkMetadata(message: Pick<Message, "metadata">): AiSdkMetadata | undefined {
  const value = message.metadata?.[METADATA_KEY];
  if (value === null || typeof value !== "object" || (value as { v?: unknown }).v !== 1) return undefined;
  return value as AiSdkMetadata;
}
