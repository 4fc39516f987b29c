import { describe, it } from "vitest";
import { postgresBackend } from "../support/store-backends.ts";
import { describeEventStoreContract } from "./event-store-contract.ts";

const url = process.env.TEST_DATABASE_URL;

if (url === undefined || url === "") {
  console.warn(
    "\n!!! SKIPPING the PostgreSQL EventStore contract suite: TEST_DATABASE_URL is not set (and testcontainers " +
      "is not installed). Set it, e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test, to run it. !!!\n",
  );
  describe.skip("EventStore contract on PostgreSQL (TEST_DATABASE_URL not set)", () => {
    it("needs TEST_DATABASE_URL", () => {});
  });
} else {
  describeEventStoreContract("PostgreSQL (a fresh database per run)", () => postgresBackend(url));
}
