import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Message, type MirrorKey, parseTranscript } from "@palimpsest/core";
import { importSessions, openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { mirrorSessionId } from "@palimpsest/runtime/testing";
import { HAVE_TRANSCRIPTS, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { viewProblems } from "../support/view-invariants.ts";

/** One Claude Code session of the shared transcripts: its main file (when there is one) and its subagent files. */
export interface ClaudeCodeSession {
  /** The folder it came from (spotter, claude-code-viewer). */
  group: string;
  id: string;
  /** Absolute path of `<id>.jsonl`; undefined when only the subagents were kept. */
  main: string | undefined;
  subagents: { agentId: string; subpath: string; path: string }[];
}

/** Every Claude Code session under the shared transcripts' `claude-code` folder ([] when it is absent). */
export function claudeCodeSessions(): ClaudeCodeSession[] {
  const root = join(TRANSCRIPTS_DIR, "claude-code");
  if (!HAVE_TRANSCRIPTS || !existsSync(root)) return [];
  const out: ClaudeCodeSession[] = [];
  for (const group of readdirSync(root).sort()) {
    const dir = join(root, group);
    if (!statSync(dir).isDirectory()) continue;
    const names = readdirSync(dir);
    const ids = new Set<string>();
    for (const name of names) {
      if (name.endsWith(".jsonl")) ids.add(name.slice(0, -".jsonl".length));
      else if (existsSync(join(dir, name, "subagents"))) ids.add(name);
    }
    for (const id of [...ids].sort()) {
      const main = join(dir, `${id}.jsonl`);
      const agents = join(dir, id, "subagents");
      const subagents = existsSync(agents)
        ? readdirSync(agents)
            .filter((f) => /^agent-.+\.jsonl$/.test(f))
            .sort()
            .map((f) => {
              const stem = f.slice(0, -".jsonl".length);
              return { agentId: stem.slice("agent-".length), subpath: `subagents/${stem}`, path: join(agents, f) };
            })
        : [];
      out.push({ group, id, main: existsSync(main) ? main : undefined, subagents });
    }
  }
  return out;
}

/** A file's lines as the SDK reads them: each non-blank line parsed. */
export function jsonLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The SDK's project directory name for a cwd (`~/.claude/projects/<name>`): every character that is not
 * an ASCII letter or digit becomes `-` (paths here stay far below the SDK's 200-character cut).
 */
export function sanitizedProject(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

/** Copies a session's files under `configDir/projects/<sanitized cwd>/` as Claude Code writes them. */
export function layOut(configDir: string, cwd: string, session: ClaudeCodeSession): void {
  const project = join(configDir, "projects", sanitizedProject(cwd));
  mkdirSync(join(project, session.id, "subagents"), { recursive: true });
  if (session.main !== undefined) copyFileSync(session.main, join(project, `${session.id}.jsonl`));
  for (const agent of session.subagents) {
    copyFileSync(agent.path, join(project, session.id, `${agent.subpath}.jsonl`));
  }
}

/** The JSONL file name the mirror gives a key's entries (the importer reads subagent ids from it). */
export function fileNameOf(key: MirrorKey): string {
  return key.subpath === undefined ? `${key.session}.jsonl` : `${key.session}/${key.subpath}.jsonl`;
}

/** A thread's view messages (by the importer's externalId) and the problems view-invariants finds in it. */
export type Views = Map<string, { messages: Message[]; problems: string[] }>;

async function viewOf(runtime: Palimpsest, sessionId: string): Promise<{ messages: Message[]; problems: string[] }> {
  const session = await runtime.resume(sessionId);
  const log = await runtime.store.readStream(sessionId);
  return { messages: [...session.view().messages], problems: viewProblems(session, log) };
}

/**
 * What `palimpsest import` makes of `text` (the key's lines joined by "\n"): imported with importSessions
 * into a fresh in-memory store of its own, each thread's view.
 */
export async function importerViews(text: string, fileName: string): Promise<Views> {
  const runtime = await openPalimpsest({ url: ":memory:" });
  try {
    const sources = text.trim().length === 0 ? [] : parseTranscript(text, { format: "claude-code", fileName });
    const results = await importSessions(runtime, sources);
    const views: Views = new Map();
    for (const r of results) views.set(r.externalId, await viewOf(runtime, r.sessionId));
    return views;
  } finally {
    await runtime.close();
  }
}

/**
 * The mirror's view of each thread the importer finds in `text`: the session foldMirrorKey names for it
 * (generation `generation`; every thread of a key's entries is named under that key), or no messages
 * when nothing of the thread is folded yet.
 */
export async function mirrorViews(
  runtime: Palimpsest,
  key: MirrorKey,
  generation: number,
  externalIds: Iterable<string>,
): Promise<Views> {
  const views: Views = new Map();
  for (const externalId of externalIds) {
    const sessionId = mirrorSessionId(key, generation, externalId);
    const exists = (await runtime.store.getSession(sessionId)) !== undefined;
    views.set(externalId, exists ? await viewOf(runtime, sessionId) : { messages: [], problems: [] });
  }
  return views;
}

/**
 * A view's messages with the mirror's revision suffix (`<id>~r<n>`, a message that grew after it was
 * folded, revised under a new id) stripped, so they compare with the importer's `<id>`.
 */
export function unrevised(messages: readonly Message[]): Message[] {
  return messages.map((m) => ({ ...m, id: m.id.replace(/~r\d+$/, "") }));
}
