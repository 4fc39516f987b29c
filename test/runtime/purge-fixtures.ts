import { randomBytes } from "node:crypto";
import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import type { Palimpsest, Session } from "@palimpsest/runtime";
import { TranscriptWriter, text, toolResult, toolUse } from "../claude-agent-sdk/claude-code-lines.ts";

/**
 * About `kib` KiB of text no compressor shortens (random hex), with `marker` every 800 characters.
 * PostgreSQL keeps such a value as written (it compresses a value only when that saves a quarter of it),
 * inline or in the TOAST table, so a byte scan of the files finds every copy; compressed, it would not.
 */
export function incompressible(marker: string, kib: number): string {
  return Array.from(
    { length: Math.ceil((kib * 1024) / 800) },
    () => `${randomBytes(400).toString("hex")} ${marker} `,
  ).join("");
}

/** A completed turn whose tool output is 16 KiB of incompressible text: on PostgreSQL, in the events' TOAST table. */
export async function bigToolOutput(session: Session, marker: string, n: number): Promise<void> {
  await session.append(
    [
      { id: `bigq${n}`, role: "user", content: `cat the log ${n}` },
      { id: `biga${n}`, role: "assistant", content: [], toolCalls: [{ id: `bigc${n}`, name: "cat", arguments: "{}" }] },
      { id: `bigt${n}`, role: "tool", toolCallId: `bigc${n}`, content: incompressible(marker, 16) },
    ],
    { turnId: `bigturn${n}` },
  );
  await session.completeTurn(`bigturn${n}`, { promptTokens: 5000, completionTokens: 10 });
}

/**
 * A session of only incompressible messages, appended one at a time by a runtime that snapshots after
 * every write: its snapshots are stored as written (on PostgreSQL out of line, in the snapshots' TOAST
 * table), where the snapshots of a session of ordinary text are compressed and a byte scan misses them.
 */
export async function incompressibleSession(runtime: Palimpsest, marker: string): Promise<Session> {
  const session = await runtime.startSession({ model: "gpt-4o" });
  for (let n = 0; n < 3; n++) {
    await session.append({ id: `iu${n}`, role: "user", content: incompressible(marker, 3) });
    await session.append({ id: `ia${n}`, role: "assistant", content: incompressible(marker, 3) });
  }
  return session;
}

/**
 * A Claude Code conversation mirrored through the SessionStore on `key`, every text holding `marker`,
 * folded into its Palimpsest session before this returns: its lines.
 */
export async function mirroredConversation(
  store: PalimpsestSessionStore,
  key: SessionKey,
  marker: string,
): Promise<SessionStoreEntry[]> {
  const writer = new TranscriptWriter(key.sessionId);
  const lines = [
    writer.user(`please find ${marker}`),
    writer.assistant("msg_1", text(`looking for ${marker}`), toolUse("toolu_1", "Grep", { pattern: marker })),
    writer.user([toolResult("toolu_1", `found ${marker} in notes.txt`)]),
    writer.assistant("msg_2", text(`it is in notes.txt (${marker})`)),
  ];
  await store.append(key, lines);
  await store.flush();
  return lines;
}
