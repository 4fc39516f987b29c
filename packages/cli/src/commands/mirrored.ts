import { checkId, NotFoundError } from "@palimpsest/core";
import { MirrorLog } from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { openCommandStore } from "../database.ts";
import { emit, type GlobalOptions, table } from "../output.ts";

/** One key an SDK session is mirrored under: its project key, its subpath ("" for the main transcript). */
export interface MirroredKey {
  projectKey: string;
  subpath: string;
  entries: number;
  /** The Palimpsest sessions folded from the key, its main thread first (SessionStore.sessionIds). */
  sessions: string[];
}

/**
 * `mirrored <sdk-session-id>`: where the Claude Agent SDK SessionStore keeps a session
 * (docs/claude-agent-sdk.md): every key holding it, in each project key that has it (the main transcript,
 * then its subpaths), with its entry count and the Palimpsest sessions folded from it. NOT_FOUND when no
 * key holds it.
 */
export function registerMirrored(program: Command, io: CliIo): void {
  program
    .command("mirrored <sdk-session-id>")
    .description("list the keys a Claude Agent SDK session is mirrored under and the sessions folded from each")
    .action(async (sessionId: string) => {
      checkId(sessionId, "sdk-session-id");
      const global = program.opts<GlobalOptions>();
      const store = await openCommandStore(global, io, "read");
      const keys: MirroredKey[] = [];
      try {
        const log = new MirrorLog(store);
        for (const main of await log.mainKeysOf(sessionId)) {
          for (const key of await log.sessionKeys(main.project, main.session)) {
            const sessions = await log.sessionsIn(key, key.generation);
            keys.push({ projectKey: key.project, subpath: key.subpath ?? "", entries: key.nextSeq, sessions });
          }
        }
      } finally {
        await store.close();
      }
      if (keys.length === 0) throw new NotFoundError("session", sessionId);
      emit(io, global, { sessionId, keys }, (found) =>
        table(
          ["project key", "subpath", "entries", "sessions"],
          found.keys.map((k) => [k.projectKey, k.subpath || "(main)", k.entries, k.sessions.join(" ")]),
        ),
      );
    });
}
