import { z } from "zod";
import { ID_LIMITS } from "../input/id-limits.ts";
import { IdSchema } from "../input/id-schema.ts";
import { BoundedJsonSchema, TOO_DEEP, withinJsonDepth } from "../input/json-depth.ts";
import { isPlainRecord, PROTO_KEY } from "../input/own-keys.ts";
import { plainCopy } from "../input/plain-copy.ts";

/** The four roles a transcript message can take. */
export const RoleSchema = z.enum(["system", "user", "assistant", "tool"]);
/** A message role. */
export type Role = z.infer<typeof RoleSchema>;

/** Plain text content. Stored byte for byte. */
const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });

/** An image, inline (base64 `data`) or by `url`; never interpreted, only carried. */
const ImagePartSchema = z
  .object({
    type: z.literal("image"),
    mediaType: z.string().min(1).optional(),
    data: z.string().optional(),
    url: z.string().optional(),
  })
  .refine((p) => p.data !== undefined || p.url !== undefined, { message: "an image part needs data or url" });

/**
 * One content part of a message: its own fields only (other keys are left out, as they always were). An
 * own `__proto__` key (what JSON.parse makes of one) is refused at its path rather than left out unseen:
 * metadata and reasoning keep such a key as data (MetadataSchema), a part has no place for it.
 */
const ContentPartSchema = z
  .unknown()
  .superRefine((part, ctx) => {
    if (part !== null && typeof part === "object" && Object.hasOwn(part, PROTO_KEY)) {
      ctx.addIssue({ code: "custom", path: [PROTO_KEY], message: "a content part has no __proto__ field" });
    }
  })
  .pipe(z.discriminatedUnion("type", [TextPartSchema, ImagePartSchema]));
/** One content part of a message. */
export type ContentPart = Message["content"][number];
/** An image part. */
export type ImagePart = Extract<ContentPart, { type: "image" }>;

/** A tool call an assistant made: `arguments` is the JSON text exactly as the model produced it. */
const ToolCallSchema = z.object({
  id: IdSchema,
  name: z.string().min(1),
  arguments: z.string(),
});
/** A tool call an assistant made. */
export type ToolCall = NonNullable<Message["toolCalls"]>[number];

/** Opaque JSON, e.g. provider reasoning blocks with their signatures: kept, never interpreted, bounded in depth. */
export const OpaqueSchema: z.ZodType<unknown> = BoundedJsonSchema;

/**
 * A message's metadata: a plain object of opaque JSON, bounded in depth, copied all the way down as it is
 * (plainCopy), an own `__proto__` key included (zod's record leaves that one out).
 */
export const MetadataSchema = z
  .custom<Record<string, unknown>>(isPlainRecord, { message: "Invalid input: expected record" })
  .refine(withinJsonDepth, { ...TOO_DEEP, abort: true })
  .overwrite((metadata) => plainCopy(metadata) as Record<string, unknown>);

/**
 * One transcript message. `toolCalls` only on assistant messages; `toolCallId` only (and always) on
 * tool messages; `reasoning` is opaque provider metadata that must round-trip unchanged. Its id is held
 * to ID_LIMITS.message here, on reads too (no stored message id is longer: it was 200 before); the
 * limits of its call ids bind writes only (messageIdIssue), so a log stored before them still reads.
 */
export const MessageSchema = z
  .object({
    id: IdSchema.max(ID_LIMITS.message),
    role: RoleSchema,
    content: z.array(ContentPartSchema),
    toolCalls: z.array(ToolCallSchema).optional(),
    toolCallId: IdSchema.optional(),
    name: z.string().optional(),
    isError: z.boolean().optional(),
    reasoning: OpaqueSchema.optional(),
    metadata: MetadataSchema.optional(),
  })
  .superRefine((m, ctx) => {
    if (m.toolCalls !== undefined && m.role !== "assistant") {
      ctx.addIssue({ code: "custom", message: "only assistant messages carry tool calls", path: ["toolCalls"] });
    }
    if (m.role === "tool" && m.toolCallId === undefined) {
      ctx.addIssue({ code: "custom", message: "a tool message needs toolCallId", path: ["toolCallId"] });
    }
    if (m.role !== "tool" && m.toolCallId !== undefined) {
      ctx.addIssue({ code: "custom", message: "only tool messages carry toolCallId", path: ["toolCallId"] });
    }
  });
/** One transcript message. */
export type Message = z.infer<typeof MessageSchema>;

/** The text of a message's text parts joined by newlines (images are skipped). */
export function messageText(message: Pick<Message, "content">): string {
  let out = "";
  for (const part of message.content) {
    if (part.type !== "text") continue;
    out = out.length === 0 ? part.text : `${out}\n${part.text}`;
  }
  return out;
}

/** True when the message says nothing: no non-empty text, no image, no tool call (tool results never are). */
export function isEmptyMessage(message: Message): boolean {
  if (message.role === "tool") return false;
  const hasCalls = (message.toolCalls?.length ?? 0) > 0;
  const hasContent = message.content.some((p) => p.type === "image" || p.text.length > 0);
  return !hasCalls && !hasContent && message.reasoning === undefined;
}
