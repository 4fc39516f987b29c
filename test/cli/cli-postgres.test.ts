import { describe, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { defineCoreFlows } from "./core-flows.ts";
import { postgresCliDatabase } from "./harness.ts";

const server = postgresServer();

if ("skip" in server) {
  describe("palimpsest CLI core flows (PostgreSQL)", () => {
    it.skip(`SKIPPED: ${server.skip}`, () => {});
  });
} else {
  defineCoreFlows("PostgreSQL", () => postgresCliDatabase(server.url));
}
