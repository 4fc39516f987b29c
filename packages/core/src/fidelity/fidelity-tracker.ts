import type { Message } from "../messages/message.ts";
import type { CompactionFidelity, RequestRecall } from "./fidelity-figures.ts";
import { FIDELITY_KINDS, type FidelityKind, type PerKind, perKind } from "./fidelity-kinds.ts";
import { FidelityExtractor } from "./message-items.ts";
import { ReplacementText } from "./replacement-text.ts";

/** A message of the prompt as the tracker reads it: a live entry (placedBy set on what a compaction put there). */
export interface FidelityEntry {
  message: Message;
  tokens: number;
  placedBy?: unknown;
}

interface Item {
  kind: FidelityKind;
  value: string;
}

interface LiveHolder {
  keys: string[];
  tokens: number;
  text?: ReplacementText;
}

/**
 * Follows one conversation and its prompt: every original message as it arrives (append), every change a
 * compaction makes to the prompt (compaction), and each request's prompt (request). An item is in the prompt
 * when a live original message brought it or a live replacement's text holds it; counts are kept per item
 * (how many live messages hold it), so each step costs what changed, not the whole prompt.
 */
export class FidelityTracker {
  private readonly extractor = new FidelityExtractor();
  private readonly originals = new Map<string, string[]>();
  private readonly items = new Map<string, Item>();
  private readonly refs = new Map<string, number>();
  private readonly live = new Map<string, LiveHolder>();
  private readonly heldCount = perKind(() => 0);
  private readonly presentCount = perKind(() => 0);

  /** An original message enters the conversation, and the prompt. */
  append(entry: FidelityEntry): void {
    const { message } = entry;
    const found = this.extractor.items(message);
    const keys: string[] = [];
    for (const kind of FIDELITY_KINDS) {
      for (const value of found[kind]) {
        const key = `${kind}\u0000${value}`;
        keys.push(key);
        if (!this.items.has(key)) this.hold(key, { kind, value });
      }
    }
    this.originals.set(message.id, keys);
    if (this.live.has(message.id)) return;
    this.live.set(message.id, { keys, tokens: entry.tokens });
    for (const key of keys) this.acquire(key);
  }

  /** The prompt changed to `live` by a compaction: what it removed, and what its replacements kept of that. */
  compaction(live: readonly FidelityEntry[]): CompactionFidelity {
    const next = new Set(live.map((e) => e.message.id));
    const removedKeys = new Set<string>();
    let removedTokens = 0;
    for (const [id, holder] of this.live) {
      if (next.has(id)) continue;
      for (const key of holder.keys) removedKeys.add(key);
      removedTokens += holder.tokens;
      this.release(id);
    }
    const lost = [...removedKeys].filter((key) => (this.refs.get(key) ?? 0) === 0);
    let replacementTokens = 0;
    for (const entry of live) {
      if (this.live.has(entry.message.id)) continue;
      replacementTokens += entry.tokens;
      this.place(entry);
    }
    const removed = perKind(() => 0);
    const kept = perKind(() => 0);
    for (const key of lost) {
      const kind = (this.items.get(key) as Item).kind;
      removed[kind] += 1;
      if ((this.refs.get(key) ?? 0) > 0) kept[kind] += 1;
    }
    return { removed, kept, removedTokens, replacementTokens };
  }

  /** A request is sent with prompt `live` (synced first, as a compaction would be): its recall. */
  request(live: readonly FidelityEntry[]): RequestRecall {
    this.compaction(live);
    const byKind = perKind((kind) =>
      this.heldCount[kind] === 0 ? null : this.presentCount[kind] / this.heldCount[kind],
    );
    const values = FIDELITY_KINDS.map((k) => byKind[k]).filter((v): v is number => v !== null);
    return { recall: values.length === 0 ? 1 : values.reduce((a, b) => a + b, 0) / values.length, byKind };
  }

  /** Distinct items the conversation has held so far, per kind. */
  held(): PerKind<number> {
    return { ...this.heldCount };
  }

  /** A message the tracker did not see appended: a replacement, held items counted by its text. */
  private place(entry: FidelityEntry): void {
    const keys = this.originals.get(entry.message.id);
    if (keys !== undefined && entry.placedBy === undefined) {
      this.live.set(entry.message.id, { keys, tokens: entry.tokens });
      for (const key of keys) this.acquire(key);
      return;
    }
    const text = new ReplacementText(entryText(entry.message));
    const held: string[] = [];
    for (const [key, item] of this.items) if (text.holds(item.kind, item.value)) held.push(key);
    this.live.set(entry.message.id, { keys: held, tokens: entry.tokens, text });
    for (const key of held) this.acquire(key);
  }

  /** A new item: held from now on, and present in every live replacement whose text holds it. */
  private hold(key: string, item: Item): void {
    this.items.set(key, item);
    this.heldCount[item.kind] += 1;
    for (const holder of this.live.values()) {
      if (holder.text?.holds(item.kind, item.value) === true) {
        holder.keys.push(key);
        this.acquire(key);
      }
    }
  }

  private acquire(key: string): void {
    const n = this.refs.get(key) ?? 0;
    this.refs.set(key, n + 1);
    if (n === 0) this.presentCount[(this.items.get(key) as Item).kind] += 1;
  }

  private release(id: string): void {
    const holder = this.live.get(id);
    if (holder === undefined) return;
    this.live.delete(id);
    for (const key of holder.keys) {
      const n = (this.refs.get(key) ?? 0) - 1;
      this.refs.set(key, n);
      if (n === 0) this.presentCount[(this.items.get(key) as Item).kind] -= 1;
    }
  }
}

/** A replacement's text with its tool calls' arguments (a stub or marker may carry them). */
function entryText(message: Message): string {
  const parts = message.content.flatMap((p) => (p.type === "text" ? [p.text] : []));
  for (const call of message.toolCalls ?? []) parts.push(call.arguments);
  return parts.join("\n");
}
