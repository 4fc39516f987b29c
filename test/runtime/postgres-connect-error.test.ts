import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { openPalimpsest } from "@palimpsest/runtime";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { rejection } from "../support/rejection.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";

/** A local port nothing listens on: one the system just gave a server, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("a PostgreSQL database that cannot be connected to", () => {
  it("is STORAGE `connect` naming the server, database and user, never the password, and retryable when refused", async () => {
    const port = await closedPort();
    const error = await rejection(openPalimpsest({ url: `postgres://agent:s3cret-pw@127.0.0.1:${port}/tenants` }));
    expect(error).toMatchObject({
      code: "STORAGE",
      retryable: true,
      details: { operation: "connect", retryable: true },
    });
    expect(error.message).toBe(
      `connect: cannot connect to PostgreSQL at 127.0.0.1:${port}, database tenants as agent: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect((error.cause as { code?: unknown }).code).toBe("ECONNREFUSED");
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain("s3cret-pw");
  });

  it("names the server a query's host and user point at, and takes a malformed escape as written", async () => {
    const port = await closedPort();
    const url = `postgres://agent:pw@127.0.0.9:${port}/reports%zz?host=127.0.0.1&user=reader`;
    const error = await rejection(openPalimpsest({ url }));
    expect(error).toMatchObject({ code: "STORAGE", retryable: true, details: { operation: "connect" } });
    expect(error.message).toContain(
      `cannot connect to PostgreSQL at 127.0.0.1:${port}, database reports%zz as reader:`,
    );
  });

  it("a URL that does not parse is VALIDATION at `url`, its password hidden", async () => {
    const error = await rejection(openPalimpsest({ url: "postgres://agent:s3cret-pw@127.0.0.1:54x2/app" }));
    expect(error).toMatchObject({ code: "VALIDATION", details: { path: "url" } });
    expect(error.message).toBe(
      "database URL postgres://agent:***@127.0.0.1:54x2/app is not a valid URL: postgres://user:password@host:port/database",
    );
    expect(JSON.stringify(error.details)).not.toContain("s3cret-pw");
  });

  const server = postgresServer();
  it.skipIf("skip" in server)("is STORAGE `connect`, not retryable, when the server refuses the database", async () => {
    if ("skip" in server) return;
    const url = new URL(server.url);
    url.pathname = "/palimpsest_no_such_database";
    const error = await rejection(openPalimpsest({ url: url.href }));
    expect(error).toMatchObject({ code: "STORAGE", retryable: false, details: { operation: "connect" } });
    expect(error.message).toContain(`, database palimpsest_no_such_database as ${url.username}: `);
    expect(error.message).toContain('database "palimpsest_no_such_database" does not exist');
  });

  it.skipIf("skip" in server)("says what to do when the role may not create the tables (not the owner)", async () => {
    if ("skip" in server) return;
    const role = `palimpsest_noddl_${randomBytes(4).toString("hex")}`;
    const database = await createScratchDatabase(server.url, "noddl");
    const admin = async (text: string) => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      await client.query(text).finally(() => client.end());
    };
    await admin(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS`);
    try {
      const url = new URL(database.url);
      url.username = role;
      url.password = "";
      const error = await rejection(openPalimpsest({ url: url.href }));
      expect(error).toMatchObject({ code: "STORAGE", retryable: false, details: { operation: "migrate" } });
      expect(error.message).toContain("permission denied");
      expect(error.message).toContain("Open the store once as the tables' owner");
      expect(error.message).toContain("docs/tenants.md");
    } finally {
      await database.drop();
      await admin(`DROP ROLE IF EXISTS ${role}`);
    }
  });
});
