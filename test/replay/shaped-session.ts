import type { ImportedSession, ImportItem, Message, ToolCall } from "@palimpsest/core";
import { seededRandom } from "../support/seeded-random.ts";

/**
 * The kinds of generated agent session the policy benchmarks replay beside the real transcripts:
 * - `tool-heavy`: a coding agent's loop, a request now and then and many tool calls between (shell commands,
 *   file reads, edits), outputs of a few hundred to a few thousand tokens with error names and measured figures;
 * - `chatty`: a conversation, a long request at every step and long prose answers, a small tool call now and then;
 * - `idle-gaps`: the tool-heavy loop with the user away for 10 minutes to 2 hours at one step in 17 on
 *   average (past the 5-minute and sometimes the 1-hour prompt cache lifetime).
 */
export type SessionKind = "tool-heavy" | "chatty" | "idle-gaps";

/** One generated session: its kind, how many model steps (requests) it has, and the seed of its randomness. */
export interface SessionShape {
  kind: SessionKind;
  steps: number;
  seed: number;
}

const WORDS =
  "the a of to in and for with on that this from when then check run build test module value config cache request response handler parser schema index table row column query retry timeout worker queue event session user token limit buffer stream file path line error warning status result output input field record batch job task step plan update merge branch commit diff patch review lint format type return call args option flag default expected actual missing found invalid".split(
    " ",
  );
const MODULES = [
  "api",
  "auth",
  "billing",
  "cache",
  "cli",
  "db",
  "events",
  "jobs",
  "models",
  "parser",
  "queue",
  "search",
];
const FILES = ["handlers", "schema", "client", "utils", "service", "routes", "config", "migrations", "views", "tasks"];
const ERRORS = ["ValueError", "KeyError", "TypeError", "AssertionError", "TimeoutError", "ENOENT", "ECONNREFUSED"];
const UNITS = ["s", "ms", "MB", "KB", "%"];

/** Writes a session's text: words, paths, commands and figures drawn from one seeded generator. */
class Writer {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** About `tokens` tokens of prose. */
  prose(tokens: number): string {
    return Array.from({ length: tokens }, () => this.pick(WORDS)).join(" ");
  }
  path(): string {
    return `src/${this.pick(MODULES)}/${this.pick(FILES)}_${this.int(1, 40)}.py`;
  }
  figure(): string {
    const unit = this.pick(UNITS);
    return `${this.int(1, 999)}.${this.int(0, 99)}${unit === "%" || unit === "s" ? "" : " "}${unit}`;
  }
  /** A shell command as an agent types it (a test run, a search, a script, a diff). */
  command(step: number): string {
    switch (this.int(0, 3)) {
      case 0:
        return `pytest tests/test_${this.pick(MODULES)}.py -k ${this.pick(WORDS)}_${step} -x`;
      case 1:
        return `grep -rn "${this.pick(WORDS)}_${this.pick(WORDS)}" src/${this.pick(MODULES)}`;
      case 2:
        return `python scripts/check_${this.pick(FILES)}.py --limit ${this.int(10, 900)}`;
      default:
        return `git diff ${this.path()}`;
    }
  }
  /** A command's output: log lines, sometimes an error name, often measured figures. */
  commandOutput(tokens: number): string {
    const lines: string[] = [];
    let size = 0;
    while (size < tokens) {
      const roll = this.next();
      const line =
        roll < 0.03
          ? `${this.pick(ERRORS)}: ${this.prose(8)}`
          : roll < 0.07
            ? `${this.prose(6)} in ${this.figure()}`
            : `${this.path()}:${this.int(1, 400)}: ${this.prose(this.int(6, 16))}`;
      lines.push(line);
      size += line.split(" ").length + 6;
    }
    return lines.join("\n");
  }
  /** A file's numbered lines, as a read tool prints them. */
  fileContent(tokens: number): string {
    const lines: string[] = [];
    for (let n = 1, size = 0; size < tokens; n++) {
      const line = `${String(n).padStart(5)}\t${this.prose(this.int(4, 12))}`;
      lines.push(line);
      size += line.split(" ").length + 4;
    }
    return lines.join("\n");
  }
}

const MINUTE = 60_000;

/** A generated session of `shape`: deterministic in its seed, valid as an import (every call answered). */
export function shapedSession(shape: SessionShape, externalId = `${shape.kind}-${shape.seed}`): ImportedSession {
  const w = new Writer(shape.seed);
  const items: ImportItem[] = [];
  let clock = Date.UTC(2026, 0, 5, 9, 0, 0);
  let id = 0;
  const push = (message: Message): void => {
    items.push({ kind: "message", message, occurredAt: new Date(clock).toISOString() });
  };
  const user = (text: string) => push({ id: `m${id++}`, role: "user", content: [{ type: "text", text }] });
  const chatty = shape.kind === "chatty";
  for (let step = 0; step < shape.steps; step++) {
    const idle = shape.kind === "idle-gaps" && step > 0 && w.next() < 1 / 17;
    clock += idle ? w.int(10, 120) * MINUTE : w.int(4, 40) * 1_000;
    if (chatty || step === 0 || idle || w.next() < 0.08) {
      user(
        chatty
          ? `${w.prose(w.int(20, 150))}. Can you look at ${w.path()} and tell me what ${w.pick(WORDS)} does?`
          : `Next: fix the ${w.pick(WORDS)} ${w.pick(WORDS)} in ${w.path()} and make the tests pass.`,
      );
      clock += w.int(5, 30) * 1_000;
    }
    const calls: ToolCall[] = [];
    const callCount = chatty ? (w.next() < 0.3 ? 1 : 0) : w.int(1, 2);
    for (let c = 0; c < callCount; c++) {
      const callId = `call${id++}`;
      const roll = w.next();
      if (roll < 0.5) calls.push({ id: callId, name: "bash", arguments: JSON.stringify({ command: w.command(step) }) });
      else if (roll < 0.8) calls.push({ id: callId, name: "read_file", arguments: JSON.stringify({ path: w.path() }) });
      else
        calls.push({
          id: callId,
          name: "edit_file",
          arguments: JSON.stringify({ path: w.path(), old: w.prose(12), new: w.prose(14) }),
        });
    }
    const text = chatty ? `${w.prose(w.int(150, 700))}; it took ${w.figure()}.` : `${w.prose(w.int(10, 60))}.`;
    push({
      id: `m${id++}`,
      role: "assistant",
      content: [{ type: "text", text }],
      ...(calls.length ? { toolCalls: calls } : {}),
    });
    for (const call of calls) {
      clock += w.int(1, 20) * 1_000;
      const output =
        call.name === "bash"
          ? w.commandOutput(chatty ? w.int(40, 200) : w.int(80, 2_500))
          : call.name === "read_file"
            ? w.fileContent(chatty ? w.int(100, 400) : w.int(200, 3_000))
            : "The file was edited.";
      push({
        id: `m${id++}`,
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: [{ type: "text", text: output }],
      });
    }
  }
  // A session ends on the model's answer, not on a tool result.
  push({ id: `m${id++}`, role: "assistant", content: [{ type: "text", text: "Done." }] });
  return {
    externalId,
    format: "openai",
    items,
    repairs: { syntheticResults: 0, orphanResults: 0, renamedCalls: 0, renamedMessages: 0, skippedEmpty: 0 },
  };
}
