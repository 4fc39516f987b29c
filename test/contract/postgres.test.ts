import { describe, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { postgresBackend } from "../support/store-backends.ts";
import { describeEventStoreContract } from "./event-store-contract.ts";

const server = postgresServer();

if ("skip" in server) {
  describe("EventStore contract on PostgreSQL", () => {
    it.skip(`SKIPPED: ${server.skip}`, () => {});
  });
} else {
  describeEventStoreContract("PostgreSQL (a fresh database per run)", () => postgresBackend(server.url));
}
