/**
 * The real Claude Agent SDK against the store, no network and no Claude binary: every Claude Code
 * transcript of the shared folder laid out under a temporary CLAUDE_CONFIG_DIR as Claude Code writes it,
 * `importSessionToStore` into openSessionStore, then the SDK reads it back through the store exactly as
 * it reads it from disk, and the Palimpsest view of each session equals what `palimpsest import` makes
 * of the same file.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import type { MirrorKey } from "@palimpsest/core";
import { mirrorSessionId } from "@palimpsest/runtime/testing";
import { afterAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { HAVE_TRANSCRIPTS } from "../support/real-transcripts.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import {
  type ClaudeCodeSession,
  claudeCodeSessions,
  fileNameOf,
  importerViews,
  jsonLines,
  layOut,
  mirrorViews,
  sanitizedProject,
  unrevised,
  type Views,
} from "./claude-code-files.ts";

// The SDK reads CLAUDE_CONFIG_DIR when it looks for transcripts: set before it is loaded.
const configDir = mkdtempSync(join(tmpdir(), "palimpsest-sdk-real-"));
process.env.CLAUDE_CONFIG_DIR = configDir;
const sdk = await import("@anthropic-ai/claude-agent-sdk");

const sessions = claudeCodeSessions();
if (HAVE_TRANSCRIPTS && sessions.length === 0) throw new Error("the shared transcripts hold no claude-code folder");

/** Each group's sessions live under a project of their own (a real folder: the SDK resolves `dir`). */
const cwdOf = (group: string): string => {
  const cwd = join(configDir, "cwd", group);
  mkdirSync(cwd, { recursive: true });
  return cwd;
};
for (const session of sessions) layOut(configDir, cwdOf(session.group), session);

afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** A listing without the write times (each store stamps its own) and disk's file size, sorted by id. */
const timeless = (infos: readonly Record<string, unknown>[]) =>
  infos
    .map(({ lastModified: _t, fileSize: _f, ...rest }) => rest)
    .sort((a, b) => String(a.sessionId).localeCompare(String(b.sessionId)));

/** The fields of `info` in which `a` and `b` agree. */
const agreed = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  Object.fromEntries(Object.keys({ ...a, ...b }).flatMap((k) => (a[k] === b[k] ? [[k, a[k]]] : [])));

/** The mirror keys of a session: its main key (when it has a main file) and each subagent file's. */
function keysOf(session: ClaudeCodeSession, project: string): { key: MirrorKey; path: string }[] {
  return [
    ...(session.main === undefined ? [] : [{ key: { project, session: session.id }, path: session.main }]),
    ...session.subagents.map((a) => ({ key: { project, session: session.id, subpath: a.subpath }, path: a.path })),
  ];
}

/** Every key's mirror views, beside the importer's view of its file: equal, and every view sound. */
async function checkViews(store: PalimpsestSessionStore, session: ClaudeCodeSession, project: string) {
  const all = new Map<string, Views>();
  let messages = 0;
  for (const { key, path } of keysOf(session, project)) {
    const expected = await importerViews(readFileSync(path, "utf8"), fileNameOf(key));
    const named = await store.sessionIds({
      projectKey: key.project,
      sessionId: key.session,
      ...(key.subpath === undefined ? {} : { subpath: key.subpath }),
    });
    const actual = await mirrorViews(store.runtime, key, 0, expected.keys());
    expect(named.length, `${fileNameOf(key)}: the sessions the key is folded into`).toBe(expected.size);
    if (key.subpath !== undefined) {
      // A subagent file's session is a child of the main transcript's session (named under the main key).
      const parent = mirrorSessionId({ project: key.project, session: key.session }, 0, session.id);
      for (const id of named) {
        const [start] = await store.runtime.store.readStream(id);
        expect(start?.type === "session.started" ? start.data.parent : undefined).toEqual({
          sessionId: parent,
          relation: "subagent",
        });
      }
    }
    for (const [externalId, view] of expected) {
      const mirrored = actual.get(externalId);
      expect(mirrored?.problems, `${fileNameOf(key)} ${externalId}`).toEqual([]);
      expect(view.problems).toEqual([]);
      // A message revised after it was folded is `<id>~r<n>` in the mirror, `<id>` in the importer.
      expect(unrevised(mirrored?.messages ?? []), `${fileNameOf(key)} ${externalId}`).toEqual(view.messages);
      messages += view.messages.length;
    }
    all.set(fileNameOf(key), actual);
  }
  return { views: all, messages };
}

/** Loads, listings and logs that importing again must leave exactly as they are. */
async function snapshot(store: PalimpsestSessionStore, session: ClaudeCodeSession, project: string) {
  const loads = [];
  for (const { key } of keysOf(session, project)) {
    const sdkKey = {
      projectKey: key.project,
      sessionId: key.session,
      ...(key.subpath === undefined ? {} : { subpath: key.subpath }),
    };
    loads.push(await store.load(sdkKey));
    for (const id of await store.sessionIds(sdkKey)) loads.push(await store.runtime.store.readStream(id));
  }
  return {
    loads,
    sessions: await store.listSessions(project),
    summaries: await store.listSessionSummaries(project),
    subkeys: await store.listSubkeys({ projectKey: project, sessionId: session.id }),
  };
}

async function checkSession(store: PalimpsestSessionStore, session: ClaudeCodeSession) {
  const started = performance.now();
  const dir = cwdOf(session.group);
  const project = sanitizedProject(dir);
  if (session.main !== undefined) {
    await sdk.importSessionToStore(session.id, store, { dir });
    const fromDisk = await sdk.getSessionMessages(session.id, { dir });
    expect(fromDisk.length, "the SDK finds the laid-out file").toBeGreaterThan(0);
    expect(await sdk.getSessionMessages(session.id, { dir, sessionStore: store })).toEqual(fromDisk);
    expect(await sdk.getSessionMessages(session.id, { dir, sessionStore: store, includeSystemMessages: true })).toEqual(
      await sdk.getSessionMessages(session.id, { dir, includeSystemMessages: true }),
    );
    expect(await store.load({ projectKey: project, sessionId: session.id })).toEqual(jsonLines(session.main));
    const listed = await sdk.listSessions({ dir, sessionStore: store });
    expect(listed.map((s) => s.sessionId)).toContain(session.id);
    // The SDK's own reference store is the oracle for a listing: it derives summary and createdAt from
    // the folded summaries, not as it reads a file (a `summary` line titles a store's listing, the first
    // prompt a file's), so against disk only the fields the reference store agrees on compare.
    const reference = new sdk.InMemorySessionStore();
    await sdk.importSessionToStore(session.id, reference, { dir });
    expect(timeless(listed)).toEqual(timeless(await sdk.listSessions({ dir, sessionStore: reference })));
    const [mine] = timeless(listed).filter((s) => s.sessionId === session.id);
    const [theirs] = timeless(await sdk.listSessions({ dir, sessionStore: reference }));
    const [disk] = timeless(await sdk.listSessions({ dir })).filter((s) => s.sessionId === session.id);
    expect(mine !== undefined && disk !== undefined && theirs !== undefined).toBe(true);
    const common = agreed(theirs ?? {}, disk ?? {});
    expect(Object.keys(common)).toEqual(expect.arrayContaining(["sessionId", "cwd", "firstPrompt"]));
    expect(agreed(mine ?? {}, common)).toEqual(common);
    for (const s of listed) expect(Number.isInteger(s.lastModified)).toBe(true);
  } else {
    // Only the subagent files were kept: the SDK finds no session to import (nor, on disk, its
    // subagents), so they are appended as the SDK mirrors a subagent transcript (its key's subpath), in
    // batches of 500, to this store and to the SDK's reference store, which is then the oracle.
    await expect(sdk.importSessionToStore(session.id, store, { dir })).rejects.toThrow(/not found/);
    expect(await store.listSubkeys({ projectKey: project, sessionId: session.id })).toEqual([]);
    const reference = new sdk.InMemorySessionStore();
    for (const agent of session.subagents) {
      const lines = jsonLines(agent.path) as SessionStoreEntry[];
      const key = { projectKey: project, sessionId: session.id, subpath: agent.subpath };
      for (let i = 0; i < lines.length; i += 500) {
        await store.append(key, lines.slice(i, i + 500));
        await reference.append(key, lines.slice(i, i + 500));
      }
    }
    expect(await store.listSessions(project)).toEqual([]);
    const agents = session.subagents.map((a) => a.agentId).sort();
    expect([...(await sdk.listSubagents(session.id, { dir, sessionStore: store }))].sort()).toEqual(agents);
    for (const agent of session.subagents) {
      const theirs = await sdk.getSubagentMessages(session.id, agent.agentId, { dir, sessionStore: reference });
      expect(theirs.length).toBeGreaterThan(0);
      expect(await sdk.getSubagentMessages(session.id, agent.agentId, { dir, sessionStore: store })).toEqual(theirs);
    }
  }
  if (session.main !== undefined) {
    const agents = session.subagents.map((a) => a.agentId).sort();
    expect([...(await sdk.listSubagents(session.id, { dir }))].sort()).toEqual(agents);
    expect([...(await sdk.listSubagents(session.id, { dir, sessionStore: store }))].sort()).toEqual(agents);
    for (const agent of session.subagents) {
      const fromDisk = await sdk.getSubagentMessages(session.id, agent.agentId, { dir });
      expect(fromDisk.length, `${agent.subpath} is found on disk`).toBeGreaterThan(0);
      expect(await sdk.getSubagentMessages(session.id, agent.agentId, { dir, sessionStore: store })).toEqual(fromDisk);
    }
  }
  expect([...(await store.listSubkeys({ projectKey: project, sessionId: session.id }))].sort()).toEqual(
    session.subagents.map((a) => a.subpath).sort(),
  );
  for (const agent of session.subagents) {
    expect(await store.load({ projectKey: project, sessionId: session.id, subpath: agent.subpath })).toEqual(
      jsonLines(agent.path),
    );
  }
  await store.flush();
  const first = await checkViews(store, session, project);
  const before = await snapshot(store, session, project);

  // Importing again changes nothing: no entry, no listing, no Palimpsest event.
  if (session.main !== undefined) await sdk.importSessionToStore(session.id, store, { dir });
  await store.flush();
  expect(await snapshot(store, session, project)).toEqual(before);
  expect((await checkViews(store, session, project)).views).toEqual(first.views);
  return { messages: first.messages, ms: Math.round(performance.now() - started) };
}

describe.skipIf(!HAVE_TRANSCRIPTS)("the real Claude Agent SDK over openSessionStore (SQLite)", () => {
  for (const session of sessions) {
    const name = `${session.group}/${session.id}${session.main === undefined ? " (subagents only)" : ""}, ${session.subagents.length} subagents`;
    it(name, { timeout: 300_000 }, async () => {
      const dir = mkdtempSync(join(tmpdir(), "palimpsest-sdk-real-db-"));
      const foldErrors: unknown[] = [];
      const store = await openSessionStore({
        url: join(dir, "store.db"),
        settleMs: 60_000,
        onError: (error) => foldErrors.push(error),
      });
      try {
        const { messages, ms } = await checkSession(store, session);
        expect(foldErrors).toEqual([]);
        console.log(`real SDK (sqlite) ${session.group}/${session.id}: ${messages} view messages, ${ms} ms`);
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

const server = postgresServer();
/** The smallest spotter session with a main file and subagents: PostgreSQL runs one, SQLite runs them all. */
const pgSession = sessions
  .filter((s) => s.group === "spotter" && s.main !== undefined && s.subagents.length > 0)
  .sort((a, b) => readFileSync(a.main ?? "").length - readFileSync(b.main ?? "").length)[0];

describe.skipIf(!HAVE_TRANSCRIPTS || "skip" in server || pgSession === undefined)(
  "the real Claude Agent SDK over openSessionStore (PostgreSQL)",
  () => {
    it(`spotter/${pgSession?.id}, ${pgSession?.subagents.length} subagents`, { timeout: 300_000 }, async () => {
      if ("skip" in server || pgSession === undefined) return;
      const database = await createScratchDatabase(server.url, "sdkreal");
      const foldErrors: unknown[] = [];
      const store = await openSessionStore({
        url: database.url,
        settleMs: 60_000,
        onError: (error) => foldErrors.push(error),
      });
      try {
        const { messages, ms } = await checkSession(store, pgSession);
        expect(foldErrors).toEqual([]);
        console.log(`real SDK (postgres) spotter/${pgSession.id}: ${messages} view messages, ${ms} ms`);
      } finally {
        await store.close();
        await database.drop();
      }
    });
  },
);
