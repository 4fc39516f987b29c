import { type StoredEvent, ValidationError } from "@palimpsest/core";
import { type WatchTarget, watchEvents } from "@palimpsest/projections/live";
import type { openEventStore } from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { openCommandStore } from "../database.ts";
import { eventLine } from "../event-line.ts";
import { integerOption } from "../flags.ts";
import { sessionIdByPrefix } from "../id-prefix.ts";
import type { GlobalOptions } from "../output.ts";

interface WatchFlags {
  fromSeq?: number;
  after?: string;
  count?: number;
}

/**
 * `watch [session]`: prints events as they are committed, by this process or any other, one line each
 * (`--json`: one JSON event per line). From the end of the log unless told where to start; runs until
 * interrupted or `--count` events were printed.
 */
export function registerWatch(program: Command, io: CliIo): void {
  program
    .command("watch [session]")
    .description("print a session's events (or every session's) as they are committed, by any process")
    .addOption(integerOption("--from-seq <n>", "with a session: start at this seq (default: after its last event)", 1))
    .option("--after <checkpoint>", 'without a session: start after this global checkpoint ("" = the start)')
    .addOption(integerOption("--count <n>", "stop after printing this many events", 1))
    .action(async (id: string | undefined, flags: WatchFlags) => {
      const global = program.opts<GlobalOptions>();
      const { count } = flags;
      checkFlagsApply(id, flags);
      const store = await openCommandStore(global, io, "read");
      try {
        const target = await watchTarget(store, id, flags);
        await print(io, watchEvents(store, target), global.json === true, count);
      } finally {
        await store.close();
      }
    });
}

/** A flag that does not apply to the target is a usage error, not a wait that can never end. */
function checkFlagsApply(id: string | undefined, flags: WatchFlags): void {
  if (id !== undefined && flags.after !== undefined) {
    throw new ValidationError("--after is a global checkpoint: it applies only without a session", [
      "--after: give no session, or use --from-seq",
    ]);
  }
  if (id === undefined && flags.fromSeq !== undefined) {
    throw new ValidationError("--from-seq is a seq of one session: it needs a session", [
      "--from-seq: give a session, or use --after",
    ]);
  }
}

type Store = Awaited<ReturnType<typeof openEventStore>>;

/** Where to start: the given seq or checkpoint, else just after what the log holds now. */
async function watchTarget(store: Store, id: string | undefined, flags: WatchFlags): Promise<WatchTarget> {
  if (id === undefined) {
    return { all: true, after: flags.after ?? (await store.globalHead()) };
  }
  const sessionId = await sessionIdByPrefix(store, id);
  const fromSeq = flags.fromSeq ?? ((await store.getSession(sessionId))?.version ?? 0) + 1;
  return { sessionId, fromSeq };
}

/** Prints events until `count` were printed or the process is interrupted (SIGINT/SIGTERM end it cleanly). */
function print(
  io: CliIo,
  events: ReturnType<typeof watchEvents>,
  json: boolean,
  count: number | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let printed = 0;
    let subscription: { unsubscribe(): void } | undefined;
    const end = () => {
      subscription?.unsubscribe();
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    };
    const stop = () => {
      end();
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    subscription = events.subscribe({
      next: (event: StoredEvent) => {
        io.stdout(
          json
            ? `${JSON.stringify(event)}\n`
            : `${event.sessionId.slice(0, 8)} ${String(event.seq).padStart(5)} ${eventLine(event)}\n`,
        );
        if (count !== undefined && ++printed >= count) stop();
      },
      error: (error: unknown) => {
        end();
        reject(error);
      },
    });
    if (printed === count) subscription.unsubscribe(); // the count was reached while subscribing
  });
}
