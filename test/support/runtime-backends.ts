import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest, type RuntimeDeps } from "@palimpsest/store";
import { postgresServer } from "./postgres-server.ts";
import { postgresBackend, type StoreBackend, sqliteBackend } from "./store-backends.ts";

/** A backend for runtime-level tests: SQLite always, PostgreSQL when a server is found (see postgres-server.ts). */
export interface RuntimeBackend {
  readonly name: string;
  /** Why the backend is skipped, when it is. */
  readonly skip?: string;
  /** Creates the backend's database; call once (beforeAll). */
  setup(): Promise<void>;
  /** A runtime on its own connections to the backend's database (a "fresh process"). */
  open(options?: Omit<RuntimeDeps, "store" | "counterFor">): Promise<Palimpsest>;
  /** Closes every runtime opened and drops the database (afterAll). */
  dispose(): Promise<void>;
}

function runtimeOver(name: string, make: () => Promise<StoreBackend>, skip?: string): RuntimeBackend {
  let backend: StoreBackend | undefined;
  const base = {
    name,
    async setup() {
      backend = await make();
    },
    async open(options: Omit<RuntimeDeps, "store" | "counterFor"> = {}) {
      if (backend === undefined) throw new Error(`${name} backend used before setup()`);
      const store = await backend.open();
      return new Palimpsest({ store, counterFor: createTokenCounter, ...options });
    },
    async dispose() {
      await backend?.dispose();
    },
  };
  return skip === undefined ? base : { ...base, skip };
}

/** The runtime backends every integration test runs on; PostgreSQL skips (loudly) when there is no server. */
export function runtimeBackends(): RuntimeBackend[] {
  const server = postgresServer();
  return [
    runtimeOver("sqlite", sqliteBackend),
    "skip" in server
      ? runtimeOver("postgres", () => Promise.reject(new Error(server.skip)), server.skip)
      : runtimeOver("postgres", () => postgresBackend(server.url)),
  ];
}
