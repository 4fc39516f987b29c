import { type ContentPart, definedFields, type ToolCall } from "@palimpsest/core";
import type { MessageInput } from "@palimpsest/runtime";
import type { ModelMessage, ToolResultPart } from "ai";
import type { CheckedMessage } from "./check-messages.ts";
import { type AiSdkMetadata, METADATA_KEY } from "./stored-metadata.ts";

/** Approval responses to record: a tool message that held nothing else (see record-approvals.ts). */
export interface ApprovalStep {
  group: string;
  parts: unknown[];
  providerOptions?: unknown;
  approvalIds: string[];
  /** The UI message the responses came with, to keep on the asking message (see AiSdkMetadata.uiMessage). */
  uiMessage?: unknown;
}

/** One step of a save: a message to append, or approval responses to record on the assistant that asked. */
export type SaveStep = { kind: "append"; message: MessageInput } | ({ kind: "approvals" } & ApprovalStep);

/**
 * What a ModelMessage becomes in the log (design §5): one Palimpsest message carrying the source
 * verbatim in `metadata.aiSdk`, with the projection (content, toolCalls, reasoning) derived for token
 * counts, invariants and other vendors; a tool message becomes one Palimpsest tool message per
 * tool-result part, re-joined on a load by `group`. Approval responses travel with the result after them
 * in the same tool message; a tool message of approval responses only is an `approvals` step (R5).
 * `encoded` is `message` tag-encoded (value-codec.ts); `ui` names the UI message it came from, and
 * `uiMessage` (that UI message whole) goes with the last step.
 */
export function projectMessage({ message, encoded, ui, uiMessage }: CheckedMessage, group: string): SaveStep[] {
  const origin = ui === undefined ? {} : { ui };
  if (message.role === "tool") return withUIMessage(projectTool(message.content, encoded, group, origin), uiMessage);
  const metadata: AiSdkMetadata = { v: 1, message: encoded, ...origin, ...definedFields({ uiMessage }) };
  const base = { metadata: { [METADATA_KEY]: metadata } };
  if (message.role === "system") return [append({ ...base, role: "system", content: message.content })];
  const parts =
    typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
  const encodedParts = typeof encoded.content === "string" ? parts : (encoded.content as unknown[]);
  const content: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: unknown[] = [];
  const others: string[] = [];
  parts.forEach((part, i) => {
    const encodedPart = encodedParts[i];
    switch (part.type) {
      case "text":
        if (part.text.length > 0) content.push({ type: "text", text: part.text });
        break;
      case "image": {
        const image = imagePart(part.image, part.mediaType);
        if (image === undefined) others.push("image");
        else content.push(image);
        break;
      }
      case "file": {
        const image = part.mediaType.startsWith("image") ? imagePart(fileData(part.data), part.mediaType) : undefined;
        if (image !== undefined) content.push(image);
        else if (isTextFile(part.data)) content.push({ type: "text", text: part.data.text });
        else others.push(`file ${part.filename ?? part.mediaType}`);
        break;
      }
      case "reasoning":
      case "reasoning-file":
        reasoning.push(encodedPart);
        break;
      case "tool-call":
        if (part.providerExecuted === true) others.push(`${part.toolName} call`);
        else
          toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input ?? null) });
        break;
      case "tool-result":
        others.push(`${part.toolName} result`);
        break;
      case "custom":
        others.push(part.kind);
        break;
      case "tool-approval-request":
        others.push("approval request");
        break;
    }
  });
  // Never empty: the decider refuses a message that says nothing, and a response may hold no text at all.
  if (content.length === 0 && toolCalls.length === 0 && reasoning.length === 0) {
    content.push({ type: "text", text: `[${others.length === 0 ? "empty" : others.join(", ")}]` });
  }
  return [
    append({
      ...base,
      role: message.role,
      content,
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      ...(reasoning.length === 0 ? {} : { reasoning }),
    }),
  ];
}

function projectTool(
  parts: Extract<ModelMessage, { role: "tool" }>["content"],
  encoded: ModelMessage,
  group: string,
  origin: { ui?: string },
): SaveStep[] {
  const providerOptions = encoded.providerOptions === undefined ? {} : { providerOptions: encoded.providerOptions };
  const steps: SaveStep[] = [];
  let carried: unknown[] = [];
  let lastShare: unknown[] | undefined;
  const approvalIds: string[] = [];
  parts.forEach((part, i) => {
    const encodedPart = (encoded.content as unknown[])[i];
    if (part.type === "tool-approval-response") {
      carried.push(encodedPart);
      approvalIds.push(part.approvalId);
      return;
    }
    lastShare = [...carried, encodedPart];
    const metadata: AiSdkMetadata = { v: 1, parts: lastShare, group, ...providerOptions, ...origin };
    carried = [];
    steps.push(
      append({
        role: "tool",
        toolCallId: part.toolCallId,
        name: part.toolName,
        ...(isErrorOutput(part) ? { isError: true } : {}),
        content: resultContent(part),
        metadata: { [METADATA_KEY]: metadata },
      }),
    );
  });
  if (carried.length === 0) return steps;
  if (lastShare !== undefined) {
    // Trailing approval responses join the last result's share: the load puts them back after it.
    lastShare.push(...carried);
    return steps;
  }
  return [{ kind: "approvals", group, parts: carried, approvalIds, ...providerOptions }];
}

/** `steps` with `uiMessage` (when there is one) on the last: in its metadata, or on its approvals. */
function withUIMessage(steps: SaveStep[], uiMessage: unknown): SaveStep[] {
  const last = steps.at(-1);
  if (uiMessage === undefined || last === undefined) return steps;
  if (last.kind === "approvals") return [...steps.slice(0, -1), { ...last, uiMessage }];
  const stored = last.message.metadata?.[METADATA_KEY] as AiSdkMetadata;
  const metadata = { ...last.message.metadata, [METADATA_KEY]: { ...stored, uiMessage } };
  return [...steps.slice(0, -1), append({ ...last.message, metadata })];
}

function append(message: MessageInput): SaveStep {
  return { kind: "append", message };
}

function isErrorOutput(part: ToolResultPart): boolean {
  const type = part.output.type;
  return type === "error-text" || type === "error-json" || type === "execution-denied";
}

/** A tool result's projection: its text (JSON for structured output), and its images. */
function resultContent(part: ToolResultPart): ContentPart[] {
  const output = part.output;
  switch (output.type) {
    case "text":
    case "error-text":
      return [{ type: "text", text: output.value }];
    case "json":
    case "error-json":
      return [{ type: "text", text: JSON.stringify(output.value) }];
    case "execution-denied":
      return [{ type: "text", text: `[execution denied${output.reason === undefined ? "" : `: ${output.reason}`}]` }];
    case "content":
      return output.value.flatMap((item): ContentPart[] => {
        if (item.type === "text") return [{ type: "text", text: item.text }];
        if (item.type === "file" && item.mediaType.startsWith("image")) {
          const image = imagePart(fileData(item.data), item.mediaType);
          if (image !== undefined) return [image];
        }
        if (item.type === "image-data") return [{ type: "image", data: item.data, mediaType: item.mediaType }];
        if (item.type === "image-url") return [{ type: "image", url: item.url }];
        return [{ type: "text", text: `[${item.type}]` }];
      });
  }
}

/** The bare data of a file part (its tagged `{ type: 'data' | 'url' }` shapes unwrapped). */
function fileData(data: unknown): unknown {
  if (data !== null && typeof data === "object" && !(data instanceof URL) && !(data instanceof Uint8Array)) {
    const tagged = data as { type?: unknown; data?: unknown; url?: unknown };
    if (tagged.type === "data") return tagged.data;
    if (tagged.type === "url") return tagged.url;
  }
  return data;
}

function isTextFile(data: unknown): data is { type: "text"; text: string } {
  return data !== null && typeof data === "object" && (data as { type?: unknown }).type === "text";
}

/** An image's projection: inline base64 or a URL; undefined for a provider reference. */
function imagePart(data: unknown, mediaType: string | undefined): ContentPart | undefined {
  const typed = mediaType === undefined || mediaType === "image" ? {} : { mediaType };
  if (data instanceof URL) return { type: "image", url: data.href, ...typed };
  if (data instanceof Uint8Array) return { type: "image", data: Buffer.from(data).toString("base64"), ...typed };
  if (data instanceof ArrayBuffer) return { type: "image", data: Buffer.from(data).toString("base64"), ...typed };
  if (typeof data !== "string") return undefined;
  if (/^https?:\/\//i.test(data)) return { type: "image", url: data, ...typed };
  const inline = /^data:([^;,]+)?(?:;base64)?,(.*)$/s.exec(data);
  if (inline !== null) {
    return { type: "image", data: inline[2] ?? "", ...(inline[1] === undefined ? typed : { mediaType: inline[1] }) };
  }
  return { type: "image", data, ...typed };
}
