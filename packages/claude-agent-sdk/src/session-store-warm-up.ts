import { randomUUID } from "node:crypto";
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { MirrorKey } from "@palimpsest/core";
import type { MirrorLog } from "@palimpsest/store";
import { encodeEntries } from "./entry-codec.ts";
import { type SummaryFold, summaryFolder } from "./summary-fold.ts";

/** The project of the warm-up's made-up key (rolled back: never stored). */
const WARM_UP_PROJECT = "palimpsest-warm-up";

/** A model step's lines as the SDK mirrors them: a prompt, a reply calling a tool, and the tool's result. */
function stepLines(sessionId: string): SessionStoreEntry[] {
  const timestamp = new Date().toISOString();
  const line = (type: string, message: unknown) => ({ type, uuid: randomUUID(), sessionId, timestamp, message });
  return [
    line("user", { role: "user", content: "Read src/app.ts and tell me what main() does." }),
    line("assistant", {
      role: "assistant",
      content: [
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "toolu_warm_up", name: "Read", input: { file_path: "src/app.ts" } },
      ],
    }),
    line("user", {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_warm_up", content: "export function main() {}" }],
    }),
  ];
}

/**
 * Runs a SessionStore append's first-append path once where the store opens, writing nothing: a model
 * step's made-up lines checked and encoded, the session summary folded with the SDK's fold, and the
 * mirror's statements for a new key run in a transaction rolled back (MirrorLog.rehearseFirstAppend). The
 * SDK's first append in the process then finds its code compiled (and on SQLite its guarded write's
 * statements prepared; PostgreSQL gets unnamed statements, so there the connection's caches are what is
 * warmed). Rejects when the database refuses or a lock is held; the caller only loses the saving.
 */
export async function rehearseSessionStoreAppend(log: MirrorLog, foldSummary: SummaryFold): Promise<void> {
  const key: MirrorKey = { project: WARM_UP_PROJECT, session: randomUUID() };
  const entries = stepLines(key.session);
  const inputs = encodeEntries(entries);
  await log.rehearseFirstAppend(key, inputs, summaryFolder(foldSummary, key, inputs, entries));
}
