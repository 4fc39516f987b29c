import { randomUUID } from "node:crypto";
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";

/** A content block of a Claude Code message line (text, tool_use, tool_result, thinking…). */
export type Block = Record<string, unknown>;

/**
 * Writes a synthetic Claude Code transcript the way the CLI does: one line per user message or assistant
 * content block, chained by `parentUuid`, assistant blocks of one API message sharing `message.id`.
 */
export class TranscriptWriter {
  readonly sessionId: string;
  #parent: string | null = null;
  #clock = Date.parse("2026-02-11T20:00:00.000Z");

  constructor(sessionId: string = randomUUID()) {
    this.sessionId = sessionId;
  }

  /** A user line with text or blocks (tool results). */
  user(content: string | Block[]): SessionStoreEntry {
    return this.#line("user", { role: "user", content });
  }

  /** An assistant line: one or more blocks of the API message `messageId`. */
  assistant(messageId: string, ...content: Block[]): SessionStoreEntry {
    return this.#line("assistant", {
      id: messageId,
      type: "message",
      role: "assistant",
      model: "claude-opus-4-6",
      content,
      stop_reason: null,
      usage: { input_tokens: 3, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
  }

  #line(type: "user" | "assistant", message: Record<string, unknown>): SessionStoreEntry {
    const uuid = randomUUID();
    this.#clock += 1000;
    const line: SessionStoreEntry = {
      parentUuid: this.#parent,
      isSidechain: false,
      userType: "external",
      cwd: "/home/USER/projects/demo",
      sessionId: this.sessionId,
      version: "2.1.39",
      type,
      message,
      uuid,
      timestamp: new Date(this.#clock).toISOString(),
    };
    this.#parent = uuid;
    return line;
  }
}

/** A text block. */
export const text = (value: string): Block => ({ type: "text", text: value });

/** A tool_use block calling `name` with `input`. */
export const toolUse = (id: string, name: string, input: Record<string, unknown>): Block => ({
  type: "tool_use",
  id,
  name,
  input,
});

/** A tool_result block answering the call `toolUseId`. */
export const toolResult = (toolUseId: string, content: string): Block => ({
  tool_use_id: toolUseId,
  type: "tool_result",
  content,
});
