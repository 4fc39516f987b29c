import type { z } from "zod";
import { definedFields } from "../defined-fields.ts";
import type { Message } from "../messages/message.ts";
import {
  type ClaudeEntry,
  claudeContent,
  claudeUsage,
  mergeAssistantBlocks,
  userLineMessages,
} from "./claude-code-blocks.ts";
import { fileStem, isObject, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonLines } from "./json-input.ts";
import { flagField, numberField, rawField, read, recordOf, textField } from "./source-fields.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/** One line of a Claude Code session file, the fields the importer reads. */
const ClaudeLine = recordOf({
  type: textField,
  subtype: textField,
  summary: textField,
  sessionId: textField,
  slug: textField,
  uuid: textField,
  parentUuid: textField,
  agentId: textField,
  isSidechain: flagField,
  isCompactSummary: flagField,
  timestamp: textField,
  compactMetadata: recordOf({ preTokens: numberField, trigger: textField }),
  message: recordOf({ id: textField, model: textField, content: rawField, usage: rawField }),
});
type ClaudeLine = z.output<typeof ClaudeLine>;

/** What a `compact_boundary` line says about the compaction its summary line completes. */
type Boundary = ClaudeLine["compactMetadata"];

type Step =
  | { kind: "message"; entry: ClaudeEntry }
  | { kind: "compaction"; summary: Message; trigger: "auto" | "manual"; preTokens?: number; occurredAt?: string };

interface Thread {
  externalId: string;
  parentExternalId?: string;
  steps: Step[];
  assistants: Map<string, ClaudeEntry>;
  boundary: Boundary | undefined;
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
  for (const { value: raw, line } of parseJsonLines(text, fileName, onProgress)) {
    const path = inputPath(fileName, line);
    if (!isObject(raw)) throw invalidInput(path, "a line must be a JSON object");
    const value = read(ClaudeLine, raw);
    if (value.type === "summary") {
      title ??= value.summary;
      continue;
    }
    sessionId ??= value.sessionId;
    title ??= value.slug;
    const { uuid } = value;
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
      if (value.subtype === "compact_boundary") thread.boundary = value.compactMetadata;
    } else if (value.type === "assistant") addAssistantLine(thread, value, id, path);
    else if (value.isCompactSummary === true) addCompaction(thread, value, id, path);
    else
      for (const message of userLineMessages(value.message.content, id, path))
        thread.steps.push({ kind: "message", entry: { message, ...timeOf(value) } });
  }
  const ordered = [...threads.values()].sort(
    (a, b) => Number(b.parentExternalId === undefined) - Number(a.parentExternalId === undefined),
  );
  return ordered.map((thread) => buildSession(thread, thread.parentExternalId === undefined ? title : undefined));
}

function threadKey(line: ClaudeLine, threadOfUuid: Map<string, string>, fileAgent: string | undefined): string {
  const agent = line.agentId ?? (line.isSidechain === true ? fileAgent : undefined);
  if (agent !== undefined) return `agent:${agent}`;
  if (line.isSidechain !== true) return "main";
  const parent = threadOfUuid.get(line.parentUuid ?? "");
  return parent !== undefined && parent !== "main" ? parent : `side:${line.uuid ?? ""}`;
}

function newThread(key: string, line: ClaudeLine, sessionId: string): Thread {
  const base = { steps: [], assistants: new Map(), boundary: undefined };
  if (key === "main") return { ...base, externalId: sessionId };
  const externalId = key.startsWith("agent:") ? key.slice("agent:".length) : `${sessionId}:sidechain:${line.uuid}`;
  return { ...base, externalId, parentExternalId: sessionId };
}

function addAssistantLine(thread: Thread, line: ClaudeLine, id: string, path: string): void {
  const { message } = line;
  const key = message.id ?? id;
  let entry = thread.assistants.get(key);
  if (entry === undefined) {
    entry = { message: { id: key, role: "assistant", content: [] }, ...timeOf(line) };
    thread.assistants.set(key, entry);
    thread.steps.push({ kind: "message", entry });
  }
  mergeAssistantBlocks(entry.message, message.content, path);
  const usage = claudeUsage(message.usage);
  if (usage !== undefined) entry.usage = usage;
  const { model } = message;
  if (model !== undefined && model !== "<synthetic>") {
    thread.model ??= model;
    entry.model = model;
  }
}

function addCompaction(thread: Thread, line: ClaudeLine, id: string, path: string): void {
  const meta: Boundary = thread.boundary ?? {};
  thread.boundary = undefined;
  const summary: Message = { id, role: "user", content: claudeContent(line.message.content, path) };
  const { preTokens } = meta;
  const trigger = meta.trigger === "manual" ? "manual" : "auto";
  thread.steps.push({
    kind: "compaction",
    summary,
    trigger,
    ...definedFields({ preTokens }),
    ...timeOf(line),
  });
}

/** The line's `timestamp` as `{ occurredAt }` when it is a readable time, else nothing. */
function timeOf(line: ClaudeLine): { occurredAt?: string } {
  const raw = line.timestamp;
  const ms = raw === undefined ? Number.NaN : Date.parse(raw);
  return Number.isNaN(ms) ? {} : { occurredAt: new Date(ms).toISOString() };
}

function buildSession(thread: Thread, title: string | undefined): ImportedSession {
  const builder = new TranscriptBuilder(thread.externalId);
  for (const step of thread.steps) {
    if (step.kind === "compaction") builder.addCompaction(step.summary, step.trigger, step.preTokens, step.occurredAt);
    else builder.add(step.entry.message, step.entry.usage, step.entry.occurredAt, step.entry.model);
  }
  const { externalId, parentExternalId, model } = thread;
  return builder.finish({
    externalId,
    format: "claude-code",
    ...definedFields({ title, model, parentExternalId }),
  });
}
