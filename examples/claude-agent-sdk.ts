/**
 * The Claude Agent SDK's SessionStore on Palimpsest: a Claude Code session (here an existing local one,
 * copied in with the SDK's importSessionToStore) mirrored, read back through the SDK, looked at as a
 * Palimpsest session with its compaction, and deleted (an erasure). An agent run (RUN_CLAUDE_AGENT=1)
 * gets the recall tools over its own session.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getSessionMessages, importSessionToStore, query } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore } from "palimpsest/claude-agent-sdk";
import { claudeCodeSession } from "./claude-code-session.ts";

const dir = mkdtempSync(join(tmpdir(), "palimpsest-sdk-"));
process.env.CLAUDE_CONFIG_DIR = join(dir, "claude"); // where Claude Code keeps its local transcripts
const projectKey = process.cwd().replace(/[^a-zA-Z0-9]/g, "-"); // the SDK's key for this directory
const { sessionId, lines } = claudeCodeSession(process.cwd());
mkdirSync(join(dir, "claude", "projects", projectKey), { recursive: true });
writeFileSync(join(dir, "claude", "projects", projectKey, `${sessionId}.jsonl`), lines);

const sessionStore = await openSessionStore({ url: join(dir, "sessions.db") }); // or postgres://…

/** An agent whose transcript the SDK mirrors into the store as it runs (and resumes from it). */
async function runAgent(prompt: string, session: { sessionId: string } | { resume: string }): Promise<void> {
  const id = "resume" in session ? session.resume : session.sessionId;
  const palimpsest = await sessionStore.recallServer(id); // `recall` and `expand` over the session's whole log
  const allowedTools = ["mcp__palimpsest__recall", "mcp__palimpsest__expand"];
  const options = { sessionStore, ...session, mcpServers: { palimpsest }, allowedTools };
  for await (const message of query({ prompt, options })) {
    if (message.type === "result") console.log(message.subtype);
  }
}
if (process.env.RUN_CLAUDE_AGENT === "1") await runAgent("Fix the failing test", { sessionId: randomUUID() }); // needs Claude and a key

await importSessionToStore(sessionId, sessionStore); // a local session copied in: what the SDK mirrors live
const messages = await getSessionMessages(sessionId, { sessionStore }); // read back through the store
await sessionStore.flush(); // fold what is mirrored into its Palimpsest session now (it happens on its own too)
const [key] = await sessionStore.keysOf(sessionId); // where the SDK stored it: { projectKey, sessionId }
if (key === undefined) throw new Error(`session ${sessionId} is not in the store`);
const [palimpsestId = ""] = await sessionStore.sessionIds(sessionId); // its main thread first, then subagents
const session = await sessionStore.runtime.resume(sessionId); // by the SDK's session id, or by palimpsestId
const [compaction] = await session.history(); // Claude Code's own compaction, as a supersede
const originals = await session.expand(compaction?.compactionId ?? ""); // what its summary replaced

console.log(
  `stored under ${key.projectKey === projectKey ? "this directory's" : "another"} project key; main thread ${session.id === palimpsestId}`,
);
console.log(`${messages.length} messages through the SDK, ${session.view().messages.length} in the view`);
console.log(`compaction ${compaction?.trigger}: ${originals.length} originals one expand away`);
await sessionStore.delete(key); // an erasure: entries gone, the session kept as a content-free skeleton
const erased = (await sessionStore.runtime.store.getSession(palimpsestId))?.erasedAt !== undefined;
console.log(`after delete: ${await sessionStore.load(key)}, session erased: ${erased}`);
await sessionStore.close();
