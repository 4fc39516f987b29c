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
