import { definedFields, InvariantViolation, type Message, type SessionState } from "@palimpsest/core";
import type { BatchedWrite, MessageInput } from "@palimpsest/runtime";
import type { ApprovalStep, SaveStep } from "./project-message.ts";
import { type AiSdkMetadata, aiSdkMetadata, METADATA_KEY, type StoredApprovals } from "./stored-metadata.ts";

/** A save's messages with its approval responses recorded, and the rewrites that record the rest. */
export interface RecordedApprovals {
  messages: MessageInput[];
  rewrites: BatchedWrite[];
}

/**
 * Records a save's tool approval responses (R5), planned on `state`, for one batch: the rewrites, then the
 * append of `messages`. Responses carry no toolCallId, and a Palimpsest tool message needs one (and would
 * answer the call), so they are recorded on the assistant message holding the matching
 * `tool-approval-request`, in its `metadata.aiSdk.approvals`, each with the calls answered before it (a
 * load puts the responses back after their results). An asking message in the same save is stored with
 * them; a live one is replaced by a `retract` rewrite with a stub that is the same message (same
 * projection, its calls still in flight) plus the responses, the original one `expand` away. Each rewrite
 * names its basis: the view version `state` has plus the rewrites before it. INVARIANT_VIOLATED
 * `tool-result-without-live-call` when no message asks for an approval (none did, or it was withdrawn);
 * nothing is written then.
 */
export function recordApprovals(state: Readonly<SessionState>, steps: readonly SaveStep[]): RecordedApprovals {
  const messages: MessageInput[] = [];
  const onLive = new Map<number, StoredApprovals[]>();
  const uiMessages = new Map<number, unknown>();
  for (const step of steps) {
    if (step.kind === "append") {
      messages.push(step.message);
      continue;
    }
    const inSave = messages.findLastIndex((m) => asksFor(m, step.approvalIds));
    if (inSave >= 0) {
      const asking = messages[inSave] as MessageInput;
      messages[inSave] = withApprovals(asking, [record(step, answeredBy(messages.slice(inSave + 1)))], step.uiMessage);
      continue;
    }
    const index = state.live.findLastIndex(({ message }) => asksFor(message, step.approvalIds));
    if (index < 0) {
      throw new InvariantViolation(
        "tool-result-without-live-call",
        `no assistant message asks for approval ${step.approvalIds.join(", ")} (none did, or it was withdrawn)`,
        { sessionId: state.sessionId, ids: step.approvalIds },
      );
    }
    const after = state.live.slice(index + 1).map((e) => e.message);
    onLive.set(index, [...(onLive.get(index) ?? []), record(step, [...answeredBy(after), ...answeredBy(messages)])]);
    if (step.uiMessage !== undefined) uiMessages.set(index, step.uiMessage);
  }
  const rewrites = [...onLive].map(([index, records], i): BatchedWrite => {
    const { id: owner, ...asking } = (state.live[index] as (typeof state.live)[number]).message;
    return {
      kind: "rewrite",
      rewrite: {
        mode: "retract",
        targets: [owner],
        replacements: [withApprovals(asking, records, uiMessages.get(index))],
        viewVersion: state.viewVersion + i,
        policy: "ai-sdk-approval",
      },
    };
  });
  return { messages, rewrites };
}

/** The record of one step's responses, after the calls `answered`. */
function record(step: ApprovalStep, answered: string[]): StoredApprovals {
  return {
    group: step.group,
    parts: step.parts,
    answered,
    ...definedFields({ providerOptions: step.providerOptions }),
  };
}

/** `message` with `records` added to the approvals in its adapter metadata (and the UI message they came with). */
function withApprovals(message: MessageInput, records: readonly StoredApprovals[], uiMessage: unknown): MessageInput {
  const stored = aiSdkMetadata(message) as AiSdkMetadata;
  const metadata: AiSdkMetadata = {
    ...stored,
    approvals: [...(stored.approvals ?? []), ...records],
    ...definedFields({ uiMessage }),
  };
  return { ...message, metadata: { ...message.metadata, [METADATA_KEY]: metadata } };
}

/** The call ids the tool messages among `messages` answer. */
function answeredBy(messages: readonly Pick<MessageInput, "role" | "toolCallId">[]): string[] {
  return messages.flatMap((m) => (m.role === "tool" && m.toolCallId !== undefined ? [m.toolCallId] : []));
}

/** Whether an adapter assistant message holds a `tool-approval-request` for every one of `approvalIds`. */
function asksFor(message: Pick<Message, "role" | "metadata">, approvalIds: readonly string[]): boolean {
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
