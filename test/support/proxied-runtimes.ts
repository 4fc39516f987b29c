import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest, type RuntimeDeps } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { createScratchDatabase, type ScratchDatabase } from "./scratch-postgres.ts";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

/** A scratch database with two runtimes on it: `direct`, and `proxied` through a TCP proxy a test can cut. */
export interface ProxiedRuntimes {
  database: ScratchDatabase;
  proxy: TcpProxy;
  /** Writes and reads without the proxy: a fault test's fixtures and checks. */
  direct: Palimpsest;
  /** The runtime under test, its every statement through `proxy`. */
  proxied: Palimpsest;
  /** Closes both runtimes and the proxy, and drops the database. */
  close(): Promise<void>;
}

/**
 * Creates the scratch database `name` on the server at `url`, a TCP proxy in front of the server and the
 * two runtimes; `proxied` gets `settings` beside its store and counter (compaction, telemetry…).
 */
export async function proxiedRuntimes(
  url: string,
  name: string,
  settings: Omit<RuntimeDeps, "store" | "counterFor"> = {},
): Promise<ProxiedRuntimes> {
  const database = await createScratchDatabase(url, name);
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const direct = new Palimpsest({ store: await openEventStore(database.url), counterFor: createTokenCounter });
  const proxied = new Palimpsest({
    ...settings,
    store: await openEventStore(proxy.urlFor(database.url)),
    counterFor: createTokenCounter,
  });
  return {
    database,
    proxy,
    direct,
    proxied,
    async close() {
      await proxied.store.close();
      await direct.store.close();
      await proxy.close();
      await database.drop();
    },
  };
}
