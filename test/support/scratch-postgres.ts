import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database created for one test file or bench run: its URL and how to drop it. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty database on the server of `serverUrl` (named for `label`, this process and a random
 * suffix, so parallel files and runs never meet); drop() removes it even with connections still open.
 */
export async function createScratchDatabase(serverUrl: string, label: string): Promise<ScratchDatabase> {
  const name = `palimpsest_${label}_${process.pid}_${randomBytes(4).toString("hex")}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
