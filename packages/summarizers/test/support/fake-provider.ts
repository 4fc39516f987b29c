import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One canned answer: status, JSON body, extra headers and an optional delay before answering. */
export interface CannedResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A request the fake provider received, with the input tokens its latency was charged for. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  raw: string;
  json: unknown;
  /** The request body's tokens as the latency model counts them (see FakeLatency.countTokens). */
  inputTokens: number;
}

/**
 * A model-like latency: each answer waits `perInputTokenMs` per token of the request body and
 * `perOutputTokenMs` per token of the answer body, on top of the canned `delayMs`.
 */
export interface FakeLatency {
  perInputTokenMs: number;
  perOutputTokenMs?: number;
  /** How a body's tokens are counted (default: ⌈characters / 4⌉, the usual rough estimate). */
  countTokens?: (text: string) => number;
}

/** A loopback HTTP server that answers each request with the next canned response (the last one repeats). */
export interface FakeProvider {
  baseURL: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

const roughTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * Starts a fake provider on 127.0.0.1 (port 0); `prefix` is appended to the base URL (e.g. "/v1"). With
 * `latency`, every answer is delayed in the server by the size of the request and answer, as a model's.
 */
export async function startFakeProvider(
  responses: CannedResponse[],
  prefix = "",
  latency?: FakeLatency,
): Promise<FakeProvider> {
  const received: ReceivedRequest[] = [];
  const count = latency?.countTokens ?? roughTokens;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const inputTokens = count(raw);
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        raw,
        json: raw === "" ? undefined : JSON.parse(raw),
        inputTokens,
      });
      const canned = responses[Math.min(received.length - 1, responses.length - 1)];
      if (canned === undefined) throw new Error("no canned response");
      const body = JSON.stringify(canned.body);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(canned.status ?? 200, { "content-type": "application/json", ...canned.headers });
        res.end(body);
      };
      const modelMs =
        latency === undefined
          ? 0
          : inputTokens * latency.perInputTokenMs + count(body) * (latency.perOutputTokenMs ?? 0);
      const delayMs = (canned.delayMs ?? 0) + modelMs;
      if (delayMs === 0 && canned.delayMs === undefined) send();
      else setTimeout(send, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${prefix}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
