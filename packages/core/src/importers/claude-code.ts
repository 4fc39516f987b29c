import type { Message } from "../messages/message.ts";
import {
  type ClaudeEntry,
  claudeContent,
  claudeUsage,
  mergeAssistantBlocks,
  userLineMessages,
} from "./claude-code-blocks.ts";
import { fileStem, isObject, type JsonObject, num, obj, str, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonLines } from "./json-input.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

type Step =
  | { kind: "message"; entry: ClaudeEntry }
  | { kind: "compaction"; summary: Message; trigger: "auto" | "manual"; preTokens?: number; occurredAt?: string };

interface Thread {
  externalId: string;
  parentExternalId?: string;
  steps: Step[];
  assistants: Map<string, ClaudeEntry>;
  boundary: JsonObject | undefined;
  model?: string;
}

const SUBAGENT_FILE = /(?:^|[\\/])agent-([^\\/]+)\.jsonl$/;

/**
 * Parses a Claude Code session JSONL (the `~/.claude/projects` files, old and new variants). Keeps
 * user and assistant lines, merges assistant lines sharing `message.id` (usage from the last line),
 * and turns a `compact_boundary` line plus its `isCompactSummary` user line into a compaction item.
 * The main thread is one session (id = sessionId); each sidechain thread (lines with one `agentId`, or
 * linked by `parentUuid` from a root whose parent is not a sidechain line) is its own session whose
 * parent is the main one. A `subagents/agent-<id>.jsonl` file thus yields the agent's session alone.
 */
export function parseClaudeCode(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const fileAgent = fileName === undefined ? undefined : SUBAGENT_FILE.exec(fileName)?.[1];
  const threads = new Map<string, Thread>();
  const threadOfUuid = new Map<string, string>();
  let sessionId: string | undefined;
  let title: string | undefined;
  for (const { value, line } of parseJsonLines(text, fileName, onProgress)) {
    const path = inputPath(fileName, line);
    if (!isObject(value)) throw invalidInput(path, "a line must be a JSON object");
    if (value.type === "summary") {
      title ??= str(value.summary);
      continue;
    }
    sessionId ??= str(value.sessionId);
    title ??= str(value.slug);
    const uuid = str(value.uuid);
    if (uuid !== undefined && threadOfUuid.has(uuid)) continue;
    const key = threadKey(value, threadOfUuid, fileAgent);
    if (uuid !== undefined) threadOfUuid.set(uuid, key);
    if (value.type !== "user" && value.type !== "assistant" && value.type !== "system") continue;
    const id = uuid ?? `line-${line}`;
    let thread = threads.get(key);
    if (thread === undefined) {
      thread = newThread(key, value, sessionId ?? fileStem(fileName) ?? `claude-${textDigest(text)}`);
      threads.set(key, thread);
    }
    if (value.type === "system") {
      if (value.subtype === "compact_boundary") thread.boundary = obj(value.compactMetadata);
    } else if (value.type === "assistant") addAssistantLine(thread, value, id, path);
    else if (value.isCompactSummary === true) addCompaction(thread, value, id, path);
    else
      for (const message of userLineMessages(value, id, path))
        thread.steps.push({ kind: "message", entry: { message, ...timeOf(value) } });
  }
  const ordered = [...threads.values()].sort(
    (a, b) => Number(b.parentExternalId === undefined) - Number(a.parentExternalId === undefined),
  );
  return ordered.map((thread) => buildSession(thread, thread.parentExternalId === undefined ? title : undefined));
}

function threadKey(line: JsonObject, threadOfUuid: Map<string, string>, fileAgent: string | undefined): string {
  const agent = str(line.agentId) ?? (line.isSidechain === true ? fileAgent : undefined);
  if (agent !== undefined) return `agent:${agent}`;
  if (line.isSidechain !== true) return "main";
  const parent = threadOfUuid.get(str(line.parentUuid) ?? "");
  return parent !== undefined && parent !== "main" ? parent : `side:${str(line.uuid) ?? ""}`;
}

function newThread(key: string, line: JsonObject, sessionId: string): Thread {
  const base = { steps: [], assistants: new Map(), boundary: undefined };
  if (key === "main") return { ...base, externalId: sessionId };
  const externalId = key.startsWith("agent:") ? key.slice("agent:".length) : `${sessionId}:sidechain:${str(line.uuid)}`;
  return { ...base, externalId, parentExternalId: sessionId };
}

function addAssistantLine(thread: Thread, line: JsonObject, id: string, path: string): void {
  const message = obj(line.message);
  const key = str(message.id) ?? id;
  let entry = thread.assistants.get(key);
  if (entry === undefined) {
    entry = { message: { id: key, role: "assistant", content: [] }, ...timeOf(line) };
    thread.assistants.set(key, entry);
    thread.steps.push({ kind: "message", entry });
  }
  mergeAssistantBlocks(entry.message, message.content, path);
  const usage = claudeUsage(message.usage);
  if (usage !== undefined) entry.usage = usage;
  const model = str(message.model);
  if (model !== undefined && model !== "<synthetic>") thread.model ??= model;
}

function addCompaction(thread: Thread, line: JsonObject, id: string, path: string): void {
  const meta = thread.boundary ?? {};
  thread.boundary = undefined;
  const summary: Message = { id, role: "user", content: claudeContent(obj(line.message).content, path) };
  const preTokens = num(meta.preTokens);
  const trigger = meta.trigger === "manual" ? "manual" : "auto";
  thread.steps.push({
    kind: "compaction",
    summary,
    trigger,
    ...(preTokens === undefined ? {} : { preTokens }),
    ...timeOf(line),
  });
}

/** The line's `timestamp` as `{ occurredAt }` when it is a readable time, else nothing. */
function timeOf(line: JsonObject): { occurredAt?: string } {
  const raw = str(line.timestamp);
  const ms = raw === undefined ? Number.NaN : Date.parse(raw);
  return Number.isNaN(ms) ? {} : { occurredAt: new Date(ms).toISOString() };
}

function buildSession(thread: Thread, title: string | undefined): ImportedSession {
  const builder = new TranscriptBuilder(thread.externalId);
  for (const step of thread.steps) {
    if (step.kind === "compaction") builder.addCompaction(step.summary, step.trigger, step.preTokens, step.occurredAt);
    else builder.add(step.entry.message, step.entry.usage, step.entry.occurredAt);
  }
  const { externalId, parentExternalId, model } = thread;
  return builder.finish({
    externalId,
    format: "claude-code",
    ...(title === undefined ? {} : { title }),
    ...(model === undefined ? {} : { model }),
    ...(parentExternalId === undefined ? {} : { parentExternalId }),
  });
}
