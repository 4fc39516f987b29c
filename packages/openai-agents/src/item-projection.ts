import type { AgentInputItem } from "@openai/agents-core";
import type { ContentPart, ToolCall } from "@palimpsest/core";
import type { MessageInput } from "@palimpsest/runtime";
import { callIdOf, type ItemRole, itemRole, type LooseItem, loose, type StoredItems } from "./agent-item.ts";

/** Items that become one Palimpsest message; `orphaned` when its calls are withdrawn unanswered (D2). */
interface ItemGroup {
  role: "system" | "user" | "assistant" | "tool";
  items: AgentInputItem[];
  orphaned?: boolean;
}

/**
 * The Palimpsest messages that hold `items`, in order, each with its items verbatim in
 * `metadata.openaiAgents` and a projection (content, tool calls, tool call id) for tokens, the decider's
 * invariants and other vendors. A run of assistant-side items (text, reasoning, hosted calls, tool
 * calls) is one assistant message; each result is a tool message; each user or system message is its
 * own. A run whose calls are not all answered before the next non-result item is withdrawn (an
 * abandoned approval): one assistant message without tool calls holding the run and its results. So is
 * a trailing run with an unanswered call the log answered before (`answered`), which could not be
 * reopened; any other trailing run keeps its calls open.
 */
export function messagesOfItems(items: readonly AgentInputItem[], answered: ReadonlySet<string>): MessageInput[] {
  return withdrawUnanswered(groupItems(items), answered).map(projectGroup);
}

function groupItems(items: readonly AgentInputItem[]): ItemGroup[] {
  const groups: ItemGroup[] = [];
  let run: ItemGroup | undefined;
  for (const item of items) {
    const role: ItemRole = itemRole(item);
    if (role === "output" || role === "call") {
      if (run === undefined) {
        run = { role: "assistant", items: [] };
        groups.push(run);
      }
      run.items.push(item);
      continue;
    }
    run = undefined;
    const messageRole = role === "result" ? "tool" : loose(item).role === "system" ? "system" : "user";
    groups.push({ role: messageRole, items: [item] });
  }
  return groups;
}

function withdrawUnanswered(groups: ItemGroup[], answered: ReadonlySet<string>): ItemGroup[] {
  const out: ItemGroup[] = [];
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i] as ItemGroup;
    const calls = callIds(group);
    if (group.role !== "assistant" || calls.size === 0) {
      out.push(group);
      continue;
    }
    let j = i + 1;
    const results: ItemGroup[] = [];
    while (j < groups.length && (groups[j] as ItemGroup).role === "tool") {
      const id = callIdOf((groups[j] as ItemGroup).items[0] as AgentInputItem);
      if (id === undefined || !calls.has(id)) break;
      results.push(groups[j] as ItemGroup);
      j++;
    }
    const unanswered = [...calls].filter((id) => !results.some((r) => callIdOf(r.items[0] as AgentInputItem) === id));
    const trailing = j === groups.length;
    if (unanswered.length === 0 || (trailing && !unanswered.some((id) => answered.has(id)))) {
      out.push(group);
      continue;
    }
    out.push({ role: "assistant", items: [group, ...results].flatMap((g) => g.items), orphaned: true });
    i = j - 1;
  }
  return out;
}

function callIds(group: ItemGroup): Set<string> {
  const ids = new Set<string>();
  for (const item of group.items) {
    const id = itemRole(item) === "call" ? callIdOf(item) : undefined;
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

function projectGroup(group: ItemGroup): MessageInput {
  const metadata: { openaiAgents: StoredItems } = { openaiAgents: { v: 1, items: group.items } };
  if (group.role === "tool") return projectResult(group.items[0] as AgentInputItem, metadata);
  if (group.role !== "assistant") {
    return { role: group.role, content: nonEmpty(messageParts(loose(group.items[0] as AgentInputItem))), metadata };
  }
  const content: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: AgentInputItem[] = [];
  for (const item of group.items) {
    const fields = loose(item);
    if (fields.type === "reasoning") reasoning.push(item);
    else if (itemRole(item) === "call") {
      const call = toolCallOf(item);
      if (group.orphaned === true) content.push(text(`[tool call ${call.name}(${call.arguments})]`));
      else toolCalls.push(call);
    } else if (itemRole(item) === "result") content.push(...resultParts(fields));
    else content.push(...outputParts(fields));
  }
  if (group.orphaned === true) content.push(text("[unanswered tool calls withdrawn]"));
  const message: MessageInput = { role: "assistant", content, metadata };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  else if (toolCalls.length === 0) message.content = nonEmpty(content);
  return message;
}

function projectResult(item: AgentInputItem, metadata: MessageInput["metadata"]): MessageInput {
  const fields = loose(item);
  const message: MessageInput = {
    role: "tool",
    toolCallId: callIdOf(item) as string,
    name: typeof fields.name === "string" ? fields.name : String(fields.type),
    content: resultParts(fields),
    metadata,
  };
  if (fields.type === "apply_patch_call_output" && fields.status === "failed") message.isError = true;
  return message;
}

/** A tool call as Palimpsest records it: a function call's own name and arguments, else the item's kind and action. */
function toolCallOf(item: AgentInputItem): ToolCall {
  const fields = loose(item);
  const id = callIdOf(item) as string;
  if (fields.type === "function_call") {
    return { id, name: String(fields.name), arguments: String(fields.arguments) };
  }
  const action = fields.action ?? fields.actions ?? fields.operation ?? fields.arguments ?? {};
  return { id, name: String(fields.type), arguments: typeof action === "string" ? action : JSON.stringify(action) };
}

/** The content of a user, system or assistant message item: text, images, and a text rendering of the rest. */
function messageParts(fields: LooseItem): ContentPart[] {
  const content = fields.content;
  if (typeof content === "string") return [text(content)];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: LooseItem) => {
    switch (part.type) {
      case "input_text":
      case "output_text":
        return [text(String(part.text))];
      case "refusal":
        return [text(String(part.refusal))];
      case "input_image":
      case "image":
        return [imagePart(part.image)];
      case "input_file":
        return [text(`[file ${fileName(part)}]`)];
      case "audio":
        return [text(typeof part.transcript === "string" ? part.transcript : "[audio]")];
      default:
        return [];
    }
  });
}

/** The content an assistant-side item adds to its message (hosted calls and compaction as one line of text). */
function outputParts(fields: LooseItem): ContentPart[] {
  if (fields.type === undefined || fields.type === "message") return messageParts(fields);
  if (fields.type === "hosted_tool_call") return [text(`[${String(fields.name)}]`)];
  if (fields.type === "compaction") return [text("[provider compaction]")];
  return [text(`[${String(fields.type)}]`)];
}

/** The content of a result item: its text, images, and a text rendering of structured output. */
function resultParts(fields: LooseItem): ContentPart[] {
  const output = fields.output;
  if (fields.type === "shell_call_output" && Array.isArray(output)) {
    return [text(output.map((o: LooseItem) => [o.stdout, o.stderr].filter((s) => s !== "").join("\n")).join("\n"))];
  }
  if (fields.type === "tool_search_output") {
    return [text(`[tool search: ${Array.isArray(fields.tools) ? fields.tools.length : 0} tools]`)];
  }
  return outputContent(output);
}

function outputContent(output: unknown): ContentPart[] {
  if (typeof output === "string") return [text(output)];
  if (Array.isArray(output)) return output.flatMap(outputContent);
  if (output === null || typeof output !== "object") return [];
  const part = output as LooseItem;
  switch (part.type) {
    case "text":
    case "input_text":
      return [text(String(part.text))];
    case "image":
    case "input_image":
      return [imagePart(part.image)];
    case "computer_screenshot":
      return [imagePart(part.data)];
    default:
      return [text(`[file ${fileName(part)}]`)];
  }
}

/** An image part from an SDK image value: a data URL inline, a URL by reference, a file id as text. */
function imagePart(image: unknown): ContentPart {
  if (typeof image === "string") {
    const data = /^data:([^;,]+)?;base64,(.*)$/s.exec(image);
    if (data === null) return { type: "image", url: image };
    return data[1] === undefined
      ? { type: "image", data: data[2] as string }
      : { type: "image", data: data[2] as string, mediaType: data[1] };
  }
  if (image !== null && typeof image === "object") {
    const ref = image as LooseItem;
    if (typeof ref.url === "string") return { type: "image", url: ref.url };
    if (typeof ref.data === "string") {
      return typeof ref.mediaType === "string"
        ? { type: "image", data: ref.data, mediaType: ref.mediaType }
        : { type: "image", data: ref.data };
    }
    return text(`[image ${String(ref.id ?? ref.fileId ?? "")}]`);
  }
  return text("[image]");
}

function fileName(part: LooseItem): string {
  const file = part.file;
  if (typeof part.filename === "string") return part.filename;
  if (file !== null && typeof file === "object") {
    const ref = file as LooseItem;
    return String(ref.filename ?? ref.id ?? ref.url ?? "");
  }
  return typeof file === "string" && !file.startsWith("data:") ? file : "";
}

function text(value: string): ContentPart {
  return { type: "text", text: value };
}

/** Content that says something: a message whose items render to nothing gets `[empty]` (the decider refuses empty messages). */
function nonEmpty(content: ContentPart[]): ContentPart[] {
  return content.some((p) => p.type === "image" || p.text.length > 0) ? content : [text("[empty]")];
}
