import {
  checkOptionKeys,
  isPalimpsestError,
  type Message,
  messageText,
  NotFoundError,
  type TokenCounter,
  ValidationError,
} from "@palimpsest/core";
import { z } from "zod";
import type { Session } from "./session.ts";

/** Tokens a tool's answer may take when the caller names no budget. */
export const DEFAULT_TOOL_TOKENS = 2_000;
/** Most messages one recall call lists. */
const MAX_TOOL_HITS = 20;
/** Query words an answer's first line repeats. */
const LISTED_TERMS = 12;

/** What `recall` takes: the words to look for, how many messages, and where the page starts. */
export const RECALL_INPUT = {
  query: z
    .string()
    .min(1)
    .max(2_000)
    .describe("words the message held: an error name, a path, a command, a number, the user's words"),
  limit: z.number().int().min(1).max(MAX_TOOL_HITS).optional().describe("most messages to return (default 5)"),
  offset: z.number().int().min(0).optional().describe("messages to skip: the offset a previous answer gave for more"),
};

/** What `expand` takes: a compaction's id (its originals, paged by offset), or a message's seq. */
export const EXPAND_INPUT = {
  compactionId: z
    .string()
    .min(1)
    .optional()
    .describe("a compaction's id, as recall names it: the messages it replaced"),
  seq: z.number().int().min(1).optional().describe("a message's seq, as recall names it: that message whole"),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("with compactionId: originals to skip (the offset an answer gave)"),
};

/** One tool an agent calls to get back what compaction removed from its context. */
export interface RecallTool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: "recall" | "expand";
  readonly description: string;
  /** Its input as a zod object shape (the Claude Agent SDK's and MCP's tool helpers take one). */
  readonly input: Shape;
  /** Its input as a zod object (the AI SDK's tools take one). */
  readonly schema: z.ZodObject<Shape>;
  /** Its input as JSON Schema (a non-strict function tool's parameters, as the OpenAI Agents SDK takes them). */
  readonly jsonSchema: ToolJsonSchema;
  /** Answers a call (input checked against `input`): text within the token budget; ValidationError or NotFoundError for a bad call. */
  call(input: unknown): Promise<string>;
}

/** A tool's input as JSON Schema: an object of the properties it takes, the required ones named. */
export interface ToolJsonSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: boolean;
}

/** The JSON Schema of a zod object shape (zod's own conversion, without its `$schema` line). */
function jsonSchemaOf(shape: z.ZodRawShape): ToolJsonSchema {
  const { properties = {}, required = [] } = z.toJSONSchema(z.object(shape)) as Partial<ToolJsonSchema>;
  return { type: "object", properties, required, additionalProperties: false };
}

/** Each tool's input as a zod object and as JSON Schema, built once. */
const RECALL_SCHEMA = z.strictObject(RECALL_INPUT);
const EXPAND_SCHEMA = z.strictObject(EXPAND_INPUT);
const RECALL_JSON_SCHEMA = jsonSchemaOf(RECALL_INPUT);
const EXPAND_JSON_SCHEMA = jsonSchemaOf(EXPAND_INPUT);

/** How the tools answer. */
export interface RecallToolOptions {
  /** Tokens one answer may take (the session's tokenizer counts them); default DEFAULT_TOOL_TOKENS. */
  maxTokens?: number;
}

/**
 * The `recall` and `expand` tools over a session, for an agent whose context was compacted: `recall`
 * searches the session's whole log (Session.recall) and lists the original messages holding the words,
 * `expand` gives back a compaction's originals or one message by seq. Each answer fits `maxTokens`
 * (cut texts say so, and how to get the rest); the MCP server and every SDK adapter serve these two.
 * `session()` gives the session as it is now (the adapters resume it per call).
 */
export function recallTools(
  session: () => Promise<Session>,
  options: RecallToolOptions = {},
): [RecallTool<typeof RECALL_INPUT>, RecallTool<typeof EXPAND_INPUT>] {
  checkOptionKeys("recallTools", options, { maxTokens: true });
  const maxTokens = options.maxTokens ?? DEFAULT_TOOL_TOKENS;
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 100) {
    throw new ValidationError(
      "recall tools' maxTokens must be a whole number of at least 100",
      [`maxTokens: ${String(maxTokens)}`],
      { path: "maxTokens" },
    );
  }
  return [
    {
      name: "recall",
      description:
        "Search this conversation's full history, including messages that were compacted out of your context, " +
        "for the exact words you need (an error, a path, a command, a number, what the user said). Returns the " +
        "original messages, best match first, each with its seq and the compaction that removed it.",
      input: RECALL_INPUT,
      schema: RECALL_SCHEMA,
      jsonSchema: RECALL_JSON_SCHEMA,
      async call(input) {
        const { query, limit = 5, offset = 0 } = parse(RECALL_SCHEMA, input);
        const current = await session();
        const found = await current.recall(query, { limit, offset });
        const budget = new Budget(await current.tokenCounter(), maxTokens);
        const words = `${found.terms.slice(0, LISTED_TERMS).join(" ")}${found.terms.length > LISTED_TERMS ? " …" : ""}`;
        const head =
          found.messages.length === 0
            ? `No message holds any of: ${words}.`
            : `${found.messages.length} message${found.messages.length === 1 ? "" : "s"} holding ${words}, best first:`;
        const lines = [head];
        budget.take(head);
        let shown = 0;
        for (const m of found.messages) {
          const own = m.sessionId === current.id;
          const where = own
            ? m.supersededBy === undefined
              ? "still in your context"
              : `compacted by ${m.supersededBy}`
            : m.supersededBy === undefined
              ? "in that session's view"
              : `compacted there by ${m.supersededBy}`;
          const of = own ? "" : ` of session ${m.sessionId}, which this conversation came from`;
          const label = `\n[seq ${m.seq}${of}, ${m.message.role}, ${where}]`;
          const rest = own ? `expand with seq ${m.seq}` : "recall it with fewer, rarer words";
          // The first message always shows, cut to its note if need be: the next call must move on.
          const text = budget.fit(label, rendered(m.message), rest, shown === 0);
          if (text === undefined) break;
          lines.push(label, text);
          shown++;
        }
        // Cut short by the budget: the next page starts after what was shown (asked again of the store,
        // as the lineage's filtering makes offsets the store's own).
        const more =
          shown < found.messages.length
            ? (await current.recall(query, { limit: shown, offset })).nextOffset
            : found.nextOffset;
        if (more !== null) lines.push(`\nMore: call recall again with offset ${more}.`);
        return lines.join("\n");
      },
    },
    {
      name: "expand",
      description:
        "Give back what a compaction replaced (its original messages, as recall or a summary names its id), or " +
        "one message of this conversation whole by its seq.",
      input: EXPAND_INPUT,
      schema: EXPAND_SCHEMA,
      jsonSchema: EXPAND_JSON_SCHEMA,
      async call(input) {
        const { compactionId, seq, offset = 0 } = parse(EXPAND_SCHEMA, input);
        if ((compactionId === undefined) === (seq === undefined)) {
          throw new ValidationError("expand takes a compactionId or a seq, one of them", ["input: neither or both"], {
            path: "compactionId",
          });
        }
        const current = await session();
        const budget = new Budget(await current.tokenCounter(), maxTokens);
        if (seq !== undefined) {
          const [event] = await current.readLog({ fromSeq: seq, toSeq: seq });
          if (event?.type !== "message.appended") throw new NotFoundError("message", `seq ${seq}`);
          const label = `[seq ${seq}, ${event.data.message.role}]`;
          budget.take(label);
          return `${label}\n${budget.fit("", rendered(event.data.message), "the rest is not shown") ?? ""}`;
        }
        const originals = (await current.expand(compactionId as string)).slice(offset);
        const lines = [`Compaction ${compactionId} replaced these messages:`];
        budget.take(lines[0] as string);
        let shown = 0;
        for (const o of originals) {
          const label = `\n[seq ${o.seq}, ${o.message.role}]`;
          const text = budget.fit(label, rendered(o.message), `expand with seq ${o.seq}`, shown === 0);
          if (text === undefined) break;
          lines.push(label, text);
          shown++;
        }
        if (shown < originals.length) lines.push(`\nMore: call expand again with offset ${offset + shown}.`);
        return lines.join("\n");
      },
    },
  ];
}

/**
 * A tool call's answer as an MCP server returns it: one text block, `isError` when the call was refused
 * (a type literal, not an interface, so the MCP SDKs' index-signed result type takes it).
 */
export type McpToolResult = {
  content: { type: "text"; text: string }[];
  isError?: boolean;
};

/**
 * Answers a call of `tool` as an MCP tool result (the MCP server's and the Claude Agent SDK's): its text,
 * or for a refused call (a Palimpsest error: a bad input, an unknown compaction) its code and message
 * marked `isError`, which the model is shown. Any other error is thrown.
 */
export async function mcpToolResult(tool: RecallTool, input: unknown): Promise<McpToolResult> {
  try {
    return { content: [{ type: "text", text: await tool.call(input) }] };
  } catch (error) {
    const text = refusalText(error);
    if (text === undefined) throw error;
    return { content: [{ type: "text", text }], isError: true };
  }
}

/**
 * What the model is shown of a refused call of a recall tool: a Palimpsest error's code and message
 * (`VALIDATION: bad tool input: unknown argument limt (it takes query, limit, offset)`), so it can call
 * again as it should; undefined for any other error, whose words are not the model's to see.
 */
export function refusalText(error: unknown): string | undefined {
  return isPalimpsestError(error) ? `${error.code}: ${error.message}` : undefined;
}

/** A message as a tool answer shows it: its text, then each tool call it made (name and arguments). */
function rendered(message: Message): string {
  const calls = (message.toolCalls ?? []).map((call) => `[calls ${call.name} ${call.arguments}]`);
  return [messageText(message), ...calls].filter((part) => part.length > 0).join("\n");
}

/**
 * `input` parsed by `schema`: a ValidationError naming the first bad field otherwise, or the arguments the
 * tool does not take and the ones it does (`limt: 1` is not a call without a limit).
 */
function parse<T extends z.ZodObject>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue?.code === "unrecognized_keys") {
    const takes = Object.keys(schema.shape).join(", ");
    throw new ValidationError(
      `bad tool input: unknown argument${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")} (it takes ${takes})`,
      issue.keys.map((key) => `${key}: not one of ${takes}`),
      { path: issue.keys[0] ?? "" },
    );
  }
  const path = issue?.path.join(".") ?? "";
  throw new ValidationError(`bad tool input: ${path} ${issue?.message ?? ""}`.trim(), [`${path}: ${issue?.message}`], {
    path,
  });
}

/** What is left of an answer's token budget. */
class Budget {
  readonly #counter: TokenCounter;
  #left: number;

  /** A budget of `tokens`, less a margin for what joining the pieces and the closing line cost. */
  constructor(counter: TokenCounter, tokens: number) {
    this.#counter = counter;
    this.#left = tokens - Math.ceil(tokens / 20) - 20;
  }

  /** Spends what `text` costs. */
  take(text: string): void {
    this.#left -= this.#counter.countText(text);
  }

  /**
   * `text` after `label` within what is left: whole, or cut with a note naming `rest` (how to get the
   * whole); undefined when not even the label and a line of it fit, unless `always` (then the note alone).
   */
  fit(label: string, text: string, rest: string, always = false): string | undefined {
    const room = this.#left - this.#counter.countText(label);
    if (room < 20) {
      if (!always) return undefined;
      this.#left = 0;
      return ` … [cut: about ${this.#counter.countText(text)} tokens; ${rest}]`;
    }
    const tokens = this.#counter.countText(text);
    if (tokens <= room) {
      this.#left = room - tokens;
      return text;
    }
    const note = (left: number) => ` … [cut: about ${left} more tokens; ${rest}]`;
    const textRoom = room - this.#counter.countText(note(tokens)) - 1;
    // Characters per token of this text, to cut it near the room left (then measured again).
    let cut = Math.max(0, Math.floor((text.length * textRoom) / tokens));
    while (cut > 0 && this.#counter.countText(text.slice(0, cut)) > textRoom) cut = Math.floor(cut * 0.9);
    this.#left = 0;
    return `${text.slice(0, cut)}${note(tokens - this.#counter.countText(text.slice(0, cut)))}`;
  }
}
