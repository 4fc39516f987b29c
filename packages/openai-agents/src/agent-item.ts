import type { AgentInputItem } from "@openai/agents-core";
import { canonicalJson } from "@palimpsest/core";

/** An item as the SDK gives it, read field by field (the SDK's union is too wide to narrow by hand). */
export type LooseItem = Record<string, unknown>;

/**
 * Where an item goes when items are grouped into Palimpsest messages: `input` (a user or system
 * message: a message of its own), `output` (assistant text, reasoning, hosted calls, compaction: joins
 * the assistant run), `call` (a tool call with a call id: joins the run, answered by a `result`), or
 * `result` (a tool message of its own).
 */
export type ItemRole = "input" | "output" | "call" | "result";

// A `program` and its `program_output` are outputs: the program's own calls and results come between
// them, which a waiting Palimpsest tool call could not have (the SDK pairs them in model input itself).
const CALL_TYPES: ReadonlySet<string> = new Set([
  "function_call",
  "computer_call",
  "shell_call",
  "apply_patch_call",
  "tool_search_call",
]);
const RESULT_TYPES: ReadonlySet<string> = new Set([
  "function_call_result",
  "computer_call_result",
  "shell_call_output",
  "apply_patch_call_output",
  "tool_search_output",
]);

/** The item's fields, for reading. */
export function loose(item: AgentInputItem): LooseItem {
  return item as unknown as LooseItem;
}

/** The call id of a call or result item (`callId`, or `call_id` on tool search items), when it has one. */
export function callIdOf(item: AgentInputItem): string | undefined {
  const fields = loose(item);
  const id = fields.callId ?? fields.call_id;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

/** What kind of item this is for grouping (see ItemRole). A call or result without a call id is an output. */
export function itemRole(item: AgentInputItem): ItemRole {
  const { type, role } = loose(item);
  if (type === undefined || type === "message") return role === "assistant" ? "output" : "input";
  if (typeof type === "string" && (CALL_TYPES.has(type) || RESULT_TYPES.has(type))) {
    if (callIdOf(item) === undefined) return "output";
    return CALL_TYPES.has(type) ? "call" : "result";
  }
  return "output";
}

/** The stored form of an item list: `{ v: 1, items }` under `metadata.openaiAgents`. */
export interface StoredItems {
  v: 1;
  items: AgentInputItem[];
}

/** The items a message's metadata holds verbatim, when an adapter wrote it; undefined for any other message. */
export function storedItems(metadata: Record<string, unknown> | undefined): AgentInputItem[] | undefined {
  const stored = metadata?.openaiAgents as Partial<StoredItems> | undefined;
  return stored?.v === 1 && Array.isArray(stored.items) ? stored.items : undefined;
}

/** Whether two item lists are equal item by item (canonicalJson). */
export function sameItems(a: readonly AgentInputItem[], b: readonly AgentInputItem[]): boolean {
  return a.length === b.length && a.every((item, i) => canonicalJson(item) === canonicalJson(b[i]));
}
