/**
 * The second process of the audit and watch benches (`forkBenchChild(url, sessionId)`), driven over IPC:
 * it runs the audit projector (or a bare readAll reader) in a loop while told to, and appends one message
 * to `sessionId` per request, answering with the wall-clock time its commit returned.
 */
import { type ChildProcess, fork } from "node:child_process";
import { AuditReadModels, openEventStore } from "@palimpsest/store";
import { messageEvents } from "./workload.ts";

/**
 * A request from the parent: run a loop (`project`: the audit projector catching up; `read`: paging the
 * global log with readAll alone, the control) or stop it (`off`); or append one message.
 */
export type ChildRequest = { type: "loop"; loop: "project" | "read" | "off" } | { type: "append" };

/** The child's answer: the loop switched (events its loops handled so far), or a message committed. */
export type ChildReply = { type: "switched"; handled: number } | { type: "appended"; seq: number; at: number };

/** Wall-clock time in ms with sub-ms resolution, comparable across processes on one machine. */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/** A forked child and a call that sends one request and waits for its reply. */
export interface BenchChild {
  request(message: ChildRequest): Promise<ChildReply>;
  stop(): Promise<void>;
}

/** Forks this file as a child (through tsx) over the store at `url`; it is ready when the store is open. */
export async function forkBenchChild(url: string, sessionId: string): Promise<BenchChild> {
  const child: ChildProcess = fork(new URL(import.meta.url), [url, sessionId], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const replies: ((reply: ChildReply) => void)[] = [];
  child.on("message", (reply: ChildReply | "ready") => {
    if (reply !== "ready") replies.shift()?.(reply);
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`bench child on ${url} exited ${code}`)));
  });
  return {
    request: (message) =>
      new Promise((resolve) => {
        replies.push(resolve);
        child.send(message);
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  };
}

/** Serves the parent's requests until it disconnects; appends go to `sessionId` (which must exist). */
async function serve(url: string, sessionId: string): Promise<void> {
  const store = await openEventStore(url);
  const audit = new AuditReadModels(store);
  let running: "project" | "read" | "off" = "off";
  let handled = 0;
  let after = (await audit.catchUp()).checkpoint; // the reader starts where the projector stands
  let loop: Promise<void> = Promise.resolve();
  /** One round of the running loop: how many events it handled. */
  const round = async (): Promise<number> => {
    if (running === "project") return (await audit.catchUp()).events;
    const page = await store.readAll({ after, limit: 1000 });
    after = page.checkpoint;
    return page.events.length;
  };
  const run = async () => {
    while (running !== "off") {
      const events = await round();
      handled += events;
      if (events === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  process.on("message", async (message: ChildRequest) => {
    if (message.type === "loop") {
      const was = running;
      running = message.loop;
      if (running === "off") await loop;
      else if (was === "off") loop = run();
      process.send?.({ type: "switched", handled } satisfies ChildReply);
      return;
    }
    const version = (await store.getSession(sessionId))?.version ?? 0; // the parent appends too
    const result = await store.append(sessionId, messageEvents(version, version + 1), { expectedVersion: version });
    const at = wallClock();
    process.send?.({ type: "appended", seq: result.nextExpectedVersion, at } satisfies ChildReply);
  });
  process.on("disconnect", () => {
    running = "off";
    void loop.then(() => store.close()).then(() => process.exit(0));
  });
  process.send?.("ready");
}

if (process.send !== undefined && process.argv[1] === new URL(import.meta.url).pathname) {
  const [url = "", sessionId = ""] = process.argv.slice(2);
  await serve(url, sessionId);
}
