import type { Message } from "@palimpsest/core";

/** A content part in OpenAI chat-completions form. */
export type OpenAIContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** One message in OpenAI chat-completions form. */
export type OpenAIMessage =
  | { role: "system" | "user"; content: string | OpenAIContentPart[]; name?: string }
  | {
      role: "assistant";
      content: string | null;
      name?: string;
      tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

function imageUrl(part: {
  mediaType?: string | undefined;
  data?: string | undefined;
  url?: string | undefined;
}): string {
  return part.url ?? `data:${part.mediaType ?? "image/png"};base64,${part.data ?? ""}`;
}

function joinText(message: Message): string {
  return message.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
}

/** Exports a view as an OpenAI chat-completions `messages` array. */
export function toOpenAIMessages(messages: readonly Message[]): OpenAIMessage[] {
  return messages.map((m): OpenAIMessage => {
    switch (m.role) {
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId ?? "", content: joinText(m) };
      case "assistant": {
        const text = joinText(m);
        const out: OpenAIMessage = { role: "assistant", content: text.length > 0 ? text : null };
        if (m.name !== undefined) out.name = m.name;
        if (m.toolCalls !== undefined && m.toolCalls.length > 0) {
          out.tool_calls = m.toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          }));
        }
        return out;
      }
      default: {
        const hasImage = m.content.some((p) => p.type === "image");
        const content: string | OpenAIContentPart[] = hasImage
          ? m.content.map((p) =>
              p.type === "text"
                ? { type: "text", text: p.text }
                : { type: "image_url", image_url: { url: imageUrl(p) } },
            )
          : joinText(m);
        return m.name === undefined ? { role: m.role, content } : { role: m.role, content, name: m.name };
      }
    }
  });
}
