import { describe, it } from "vitest";
import { defineCoreFlows } from "./core-flows.ts";
import { postgresCliDatabase } from "./harness.ts";

const baseUrl = process.env.TEST_DATABASE_URL;

if (baseUrl === undefined || baseUrl === "") {
  console.warn("test/cli/cli-postgres.test.ts: TEST_DATABASE_URL is unset, the PostgreSQL CLI flows are SKIPPED");
  describe("palimpsest CLI core flows (PostgreSQL)", () => {
    it.skip("SKIPPED: set TEST_DATABASE_URL=postgres://… to run the CLI against PostgreSQL", () => {});
  });
} else {
  defineCoreFlows("PostgreSQL", () => postgresCliDatabase(baseUrl));
}
