/**
 * A second process on a SQLite file for the fault suites and the lock bench (`forkSqliteProcess()`),
 * driven over IPC: it opens a store when told to (the "go" of a barrier: every child waits for its
 * message), holds the file's write lock with a raw `BEGIN IMMEDIATE` until told to let go (or for a set
 * time), or appends.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { isPalimpsestError } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import type BetterSqlite3 from "better-sqlite3";
import { appendUntilStored } from "./append-until-stored.ts";

/** better-sqlite3 is a dependency of @palimpsest/store, not of the root: resolve it from there. */
const Database = createRequire(new URL("../../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;

/** A request from the parent. */
export type ProcessRequest =
  | { op: "open"; url: string }
  | { op: "hold"; file: string; releaseAfterMs?: number }
  | { op: "release" }
  | { op: "append"; url: string; sessionIds: string[]; count: number; seed: number; tag: string };

/** An error as it crossed the process boundary. */
export interface CrossedError {
  code: string;
  message: string;
}

/** The child's answer to a request: done, or failed with the error it got. */
export type ProcessReply =
  | { ok: true; conflicts?: number; errors?: CrossedError[] }
  | { ok: false; error: CrossedError };

/** A forked child: send one request and wait for its reply; stop ends it. */
export interface SqliteProcess {
  request(message: ProcessRequest): Promise<ProcessReply>;
  stop(): Promise<void>;
}

/** An error's stable code (a Palimpsest code, else the driver's) and message. */
export function crossed(error: unknown): CrossedError {
  const code = isPalimpsestError(error) ? error.code : String((error as { code?: unknown }).code ?? "UNKNOWN");
  return { code, message: error instanceof Error ? error.message : String(error) };
}

/** Forks this file as a child (through tsx); it is ready when it answered its first message. */
export async function forkSqliteProcess(): Promise<SqliteProcess> {
  const child: ChildProcess = fork(new URL(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const replies: ((reply: ProcessReply) => void)[] = [];
  child.on("message", (reply: ProcessReply | "ready") => {
    if (reply !== "ready") replies.shift()?.(reply);
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`SQLite child exited ${code}`)));
  });
  return {
    request: (message) =>
      new Promise((resolve) => {
        replies.push(resolve);
        child.send(message);
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  };
}

/** Serves the parent's requests until it disconnects. */
function serve(): void {
  let held: BetterSqlite3.Database | undefined;
  const release = (database: BetterSqlite3.Database) => {
    database.exec("COMMIT");
    database.close();
    if (held === database) held = undefined;
  };
  const handle = async (message: ProcessRequest): Promise<ProcessReply> => {
    switch (message.op) {
      case "open": {
        const store = await openEventStore(message.url);
        await store.close();
        return { ok: true };
      }
      case "hold": {
        const database = new Database(message.file);
        database.exec("BEGIN IMMEDIATE");
        held = database;
        if (message.releaseAfterMs !== undefined) setTimeout(() => release(database), message.releaseAfterMs);
        return { ok: true };
      }
      case "release":
        if (held !== undefined) release(held);
        return { ok: true };
      case "append": {
        const store = await openEventStore(message.url);
        try {
          const { conflicts, errors } = await appendUntilStored(store, message);
          return { ok: true, conflicts, errors: errors.map(crossed) };
        } finally {
          await store.close();
        }
      }
    }
  };
  process.on("message", (message: ProcessRequest) => {
    handle(message).then(
      (reply) => process.send?.(reply),
      (error: unknown) => process.send?.({ ok: false, error: crossed(error) } satisfies ProcessReply),
    );
  });
  process.on("disconnect", () => {
    held?.close();
    process.exit(0);
  });
  process.send?.("ready");
}

if (process.send !== undefined && process.argv[1] === new URL(import.meta.url).pathname) serve();
