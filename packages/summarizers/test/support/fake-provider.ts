import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One canned answer: status, JSON body, extra headers and an optional delay before answering. */
export interface CannedResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A request the fake provider received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  raw: string;
  json: unknown;
}

/** A loopback HTTP server that answers each request with the next canned response (the last one repeats). */
export interface FakeProvider {
  baseURL: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a fake provider on 127.0.0.1 (port 0); `prefix` is appended to the base URL (e.g. "/v1"). */
export async function startFakeProvider(responses: CannedResponse[], prefix = ""): Promise<FakeProvider> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        raw,
        json: raw === "" ? undefined : JSON.parse(raw),
      });
      const canned = responses[Math.min(received.length - 1, responses.length - 1)];
      if (canned === undefined) throw new Error("no canned response");
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(canned.status ?? 200, { "content-type": "application/json", ...canned.headers });
        res.end(JSON.stringify(canned.body));
      };
      if (canned.delayMs === undefined) send();
      else setTimeout(send, canned.delayMs);
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
