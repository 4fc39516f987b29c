import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

/** A TCP proxy on 127.0.0.1 in front of one server, which can "restart" without touching that server. */
export interface TcpProxy {
  /** `url` (a postgres:// URL of the proxied server) pointed at the proxy instead. */
  urlFor(url: string): string;
  /** Connections accepted so far (each one proxied to the server). */
  readonly accepted: number;
  /**
   * Loses the server's answer to the next request that contains `marker`: the request reaches the server
   * (which commits it), then the connection is cut before the answer reaches the client.
   */
  loseNextAnswer(marker: string): void;
  /** Answers lost so far (loseNextAnswer's marker seen and its answer cut). */
  readonly lost: number;
  /**
   * Loses the next `times` requests that contain `marker` before they reach the server: the connection is
   * cut instead of forwarding them, so the server never runs them (as when a connection drops mid-send).
   * `times` 0 stops losing them.
   */
  loseNextRequests(marker: string, times?: number): void;
  /** Requests lost so far (loseNextRequests' marker seen and the request cut). */
  readonly lostRequests: number;
  /** Simulates the server going down: destroys every proxied connection and refuses new ones. */
  goDown(): Promise<void>;
  /** Accepts connections again, on the same port. */
  comeUp(): Promise<void>;
  /** Stops the proxy for good. */
  close(): Promise<void>;
}

const listen = (server: Server, port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });

const stopListening = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/**
 * Starts a proxy on a free port forwarding to `target` (host and port). While down, the port is closed,
 * so a client trying to connect gets ECONNREFUSED, as from a server that is restarting.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let lost = 0;
  let marker: string | undefined;
  let lostRequests = 0;
  let requestMarker: { text: string; times: number } | undefined;
  const server = createServer((client) => {
    accepted++;
    const upstream = tcpConnect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    let losing = false;
    client.on("data", (chunk: Buffer) => {
      if (requestMarker !== undefined && chunk.includes(requestMarker.text)) {
        if (--requestMarker.times === 0) requestMarker = undefined;
        lostRequests++;
        client.destroy();
        upstream.destroy();
        return;
      }
      if (marker !== undefined && chunk.includes(marker)) {
        marker = undefined;
        losing = true;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!losing) client.write(chunk);
      else {
        lost++;
        client.destroy();
        upstream.destroy();
      }
    });
  });
  await listen(server, 0);
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP port");
  const port = address.port;
  return {
    urlFor(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.href;
    },
    get accepted() {
      return accepted;
    },
    get lost() {
      return lost;
    },
    loseNextAnswer(text) {
      marker = text;
    },
    get lostRequests() {
      return lostRequests;
    },
    loseNextRequests(text, times = 1) {
      requestMarker = times > 0 ? { text, times } : undefined;
    },
    async goDown() {
      const closed = stopListening(server);
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    comeUp: () => listen(server, port),
    async close() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await stopListening(server);
    },
  };
}
