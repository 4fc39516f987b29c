import { describe, it } from "vitest";
import { appendLoadContract } from "./append-load.contract.ts";
import { badInputContract } from "./bad-input.contract.ts";
import { concurrencyContract } from "./concurrency.contract.ts";
import type { ContractContext } from "./contract-context.ts";
import { deleteContract } from "./delete.contract.ts";
import { foldContract } from "./fold.contract.ts";
import { idempotencyContract } from "./idempotency.contract.ts";
import { keysListingContract } from "./keys-listing.contract.ts";
import { limitsContract } from "./limits.contract.ts";
import { openCloseContract } from "./open-close.contract.ts";
import { sessionIdsContract } from "./session-ids.contract.ts";
import { isolatedDatabases, type SessionStoreBackend } from "./session-store-backends.ts";
import { unreadableLinesContract } from "./unreadable-lines.contract.ts";

/**
 * The SessionStore contract of issue 12 as the Claude Agent SDK documents it, plus Palimpsest's own
 * (the fold, erasure, typed errors), on one engine; every test opens stores on a database of its own,
 * with `encrypted` under a keyring (entries and summaries sealed, content of the folds too).
 */
export function describeSessionStoreContract(backend: SessionStoreBackend, encrypted = false): void {
  describe(`PalimpsestSessionStore contract (${backend.name}${encrypted ? ", encrypted" : ""})`, () => {
    if (backend.skip !== undefined) {
      it.skip(`SKIPPED: ${backend.skip}`, () => {});
      return;
    }
    const ctx: ContractContext = { backend, fresh: isolatedDatabases(backend, encrypted) };
    appendLoadContract(ctx);
    idempotencyContract(ctx);
    keysListingContract(ctx);
    deleteContract(ctx);
    foldContract(ctx);
    sessionIdsContract(ctx);
    unreadableLinesContract(ctx);
    badInputContract(ctx);
    limitsContract(ctx);
    concurrencyContract(ctx);
    openCloseContract(ctx);
  });
}
