import { definedFields, InvariantViolation, type Message, type SessionState } from "@palimpsest/core";
import type { MessageInput, SessionWrite } from "@palimpsest/store";
import { type AiSdkMetadata, aiSdkMetadata, METADATA_KEY, type StoredApprovals } from "./stored-metadata.ts";

/** Approval responses to record: a tool message that held nothing else (see project-message.ts). */
export interface ApprovalStep {
  group: string;
  parts: unknown[];
  providerOptions?: unknown;
  approvalIds: string[];
}

/**
 * The write that records tool approval responses (R5), planned on `state`. They carry no toolCallId, and a
 * Palimpsest tool message needs one (and would answer the call), so they are recorded on the live
 * assistant message holding the matching `tool-approval-request`: one `retract` rewrite replaces it with
 * a stub that is the same message (same projection, its calls still in flight) plus the responses in
 * `metadata.aiSdk.approvals`, and appends `then` (the messages saved after them) in the same batch. The
 * original stays one `expand` away. A load puts the responses back as a tool message after the results
 * that were live when they were saved. INVARIANT_VIOLATED `tool-result-without-live-call` when no live
 * assistant message asks for that approval (none did, or it was withdrawn); nothing is written then.
 */
export function approvalsWrite(
  state: Readonly<SessionState>,
  step: ApprovalStep,
  then: readonly MessageInput[],
  turnId: string,
): SessionWrite {
  const live = state.live;
  const index = live.findLastIndex(({ message }) => asksFor(message, step.approvalIds));
  const owner = live[index];
  if (owner === undefined) {
    throw new InvariantViolation(
      "tool-result-without-live-call",
      `no live assistant message asks for approval ${step.approvalIds.join(", ")} (none did, or it was withdrawn)`,
      { sessionId: state.sessionId, ids: step.approvalIds },
    );
  }
  const answered = live
    .slice(index + 1)
    .flatMap(({ message }) =>
      message.role === "tool" && message.toolCallId !== undefined ? [message.toolCallId] : [],
    );
  const stored = aiSdkMetadata(owner.message) as AiSdkMetadata;
  const record: StoredApprovals = {
    group: step.group,
    parts: step.parts,
    answered,
    ...definedFields({ providerOptions: step.providerOptions }),
  };
  const metadata: AiSdkMetadata = { ...stored, approvals: [...(stored.approvals ?? []), record] };
  const { id: _original, ...rest } = owner.message;
  const stub: MessageInput = { ...rest, metadata: { ...owner.message.metadata, [METADATA_KEY]: metadata } };
  return {
    kind: "rewrite",
    rewrite: {
      mode: "retract",
      targets: [owner.message.id],
      replacements: [stub],
      ...(then.length === 0 ? {} : { append: then }),
      turnId,
      policy: "ai-sdk-approval",
    },
  };
}

/** Whether an adapter assistant message holds a `tool-approval-request` for every one of `approvalIds`. */
function asksFor(message: Message, approvalIds: readonly string[]): boolean {
  if (message.role !== "assistant") return false;
  const source = aiSdkMetadata(message)?.message as { content?: unknown } | undefined;
  if (!Array.isArray(source?.content)) return false;
  const asked = new Set(
    source.content.flatMap((p: { type?: unknown; approvalId?: unknown }) =>
      p?.type === "tool-approval-request" && typeof p.approvalId === "string" ? [p.approvalId] : [],
    ),
  );
  return approvalIds.every((id) => asked.has(id));
}
