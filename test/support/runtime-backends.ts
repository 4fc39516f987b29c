import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest, type RuntimeDeps } from "@palimpsest/runtime";
import { partitionedBackends, type StoreBackend, storeBackends } from "./store-backends.ts";

/** A backend for runtime-level tests: one per test engine (see test-engines.ts); PostgreSQL when a server is found. */
export interface RuntimeBackend {
  readonly name: string;
  /** Why the backend is skipped, when it is. */
  readonly skip?: string;
  /** Creates the backend's database; call once (beforeAll). */
  setup(): Promise<void>;
  /** A runtime on its own connections to the backend's database (a "fresh process"), of `options.tenant` if given. */
  open(options?: RuntimeOptions): Promise<Palimpsest>;
  /** Closes every runtime opened and drops the database (afterAll). */
  dispose(): Promise<void>;
}

/** A test runtime's options: the runtime's own, and the tenant its store serves. */
export type RuntimeOptions = Omit<RuntimeDeps, "store" | "counterFor"> & { tenant?: string };

function runtimeOver(name: string, make: () => Promise<StoreBackend>, skip?: string): RuntimeBackend {
  let backend: StoreBackend | undefined;
  const base = {
    name,
    async setup() {
      backend = await make();
    },
    async open({ tenant, ...options }: RuntimeOptions = {}) {
      if (backend === undefined) throw new Error(`${name} backend used before setup()`);
      const store = await backend.open(tenant === undefined ? {} : { tenant });
      return new Palimpsest({ store, counterFor: createTokenCounter, ...options });
    },
    async dispose() {
      await backend?.dispose();
    },
  };
  return skip === undefined ? base : { ...base, skip };
}

/** The runtime backends every integration test runs on (one per test engine); PostgreSQL skips (loudly) without a server. */
export function runtimeBackends(): RuntimeBackend[] {
  return storeBackends().map((b) => runtimeOver(b.name, b.make, b.skip));
}

/**
 * runtimeBackends, then the same engines with content encrypted (a local keyring) and PostgreSQL with its
 * log partitioned: for the property tests that must hold on every layout a user can choose.
 */
export function everyLayoutBackends(): RuntimeBackend[] {
  return [...storeBackends(), ...storeBackends(true), ...partitionedBackends()].map((b) =>
    runtimeOver(b.name, b.make, b.skip),
  );
}
