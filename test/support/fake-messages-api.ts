/**
 * A local HTTP server speaking Anthropic's Messages API (POST /v1/messages, streamed as server-sent
 * events or whole; count_tokens), so a real Claude Code process runs with no network: each request is
 * recorded and answered with the content blocks the test's script returns for it.
 */
import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A content block of a reply: text, or a tool call. */
export type ReplyBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** A request the server received: its body as JSON. */
export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  messages: { role: string; content: unknown }[];
  [field: string]: unknown;
}

/** The running server: its base URL (for ANTHROPIC_BASE_URL), what it was asked, and close. */
export interface FakeMessagesApi {
  readonly url: string;
  readonly requests: MessagesRequest[];
  close(): Promise<void>;
}

/** Starts the server on a free local port; `reply` answers each Messages request. */
export async function startFakeMessagesApi(
  reply: (request: MessagesRequest) => ReplyBlock[],
): Promise<FakeMessagesApi> {
  const requests: MessagesRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as MessagesRequest;
      if (req.url?.startsWith("/v1/messages/count_tokens")) return json(res, { input_tokens: 100 });
      if (!req.url?.startsWith("/v1/messages")) {
        res.writeHead(404).end();
        return;
      }
      requests.push(body);
      const content = reply(body);
      const stop = content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
      const message = {
        id: `msg_${randomUUID().replaceAll("-", "").slice(0, 20)}`,
        type: "message",
        role: "assistant",
        model: body.model ?? "claude-sonnet-4-5",
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 10 },
      };
      if (body.stream === true) stream(res, message, content);
      else json(res, message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** The reply as the streaming API sends it: message_start, each block's start, delta and stop, message_delta, message_stop. */
function stream(res: ServerResponse, message: Record<string, unknown>, content: readonly ReplyBlock[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send("message_start", { message: { ...message, content: [], stop_reason: null } });
  for (const [index, block] of content.entries()) {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      send("content_block_start", { index, content_block: { ...block, input: {} } });
      send("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    send("content_block_stop", { index });
  }
  send("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  send("message_stop", {});
  res.end();
}
