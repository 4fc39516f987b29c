import { randomUUID } from "node:crypto";
import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { IsolatedDatabase, SessionStoreBackend } from "./session-store-backends.ts";

/** What each part of the SessionStore contract runs with: the engine, and a database of the test's own. */
export interface ContractContext {
  readonly backend: SessionStoreBackend;
  readonly fresh: () => Promise<IsolatedDatabase>;
}

/** A main session key in its own project (both named afresh), or with `subpath`. */
export function newKey(subpath?: string): SessionKey {
  const key: SessionKey = { projectKey: `/home/USER/projects/p-${randomUUID().slice(0, 8)}`, sessionId: randomUUID() };
  return subpath === undefined ? key : { ...key, subpath };
}

/** `count` opaque entries with uuids, of mixed types (known and unknown), each with `label` in its text. */
export function entries(count: number, label = "entry"): SessionStoreEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    type: i % 3 === 2 ? "attachment-of-a-future-kind" : "progress",
    uuid: randomUUID(),
    timestamp: new Date(Date.UTC(2026, 1, 11, 20, 0, i)).toISOString(),
    data: { label: `${label} ${i}`, nested: { list: [i, `${i}`, true, null, { deep: [[]] }] }, float: i / 7 },
  }));
}

/** A uuid-less entry (a title, a tag, a mode marker: the SDK appends these without dedup). */
export function untracked(title: string): SessionStoreEntry {
  return { type: "custom-title", customTitle: title, sessionId: "s" };
}

/** Splits `list` into consecutive batches of `size`. */
export function batches<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < list.length; start += size) out.push(list.slice(start, start + size));
  return out;
}
