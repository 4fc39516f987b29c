/**
 * Recall's retrieval quality on the real transcripts (docs/recall.md, docs/fidelity.md), on two sources
 * of compactions, reported apart:
 * - offline summary (replayed): each session that can compact is appended to a session of its own, then
 *   compacted once, forced, by the offline summary policy (with a window of half its own token total, less
 *   when that leaves no middle: fidelity.ts's WINDOW_FRACTIONS);
 * - Claude Code's own compactions: each session that has them is imported as `palimpsest import` does
 *   (importSessions), each one a supersede of everything before it by Claude Code's summary.
 * A fact is lost when the FidelityExtractor (run over the whole conversation in order) finds it in a
 * message a compaction removed (for an own one: the messages since the one before it), no message left in
 * the session's view brings it, and that compaction's summary does not hold it (ReplacementText.holds);
 * each kind and value counts once per session.
 *
 * Each lost fact becomes two queries (QUERY_RULES), reported apart:
 * - half-remembered, an agent that does not know it verbatim: a user request → its first 5 words; a file
 *   path → its last segment (the basename); an error name → the name; a command → its first two words; a
 *   number → the number as extracted (`16ms`, `0.93`). Many messages can hold such a query (every
 *   `mix test` of a session): it measures ranking among them as much as finding;
 * - own words, an agent that knows what it is looking for (the summary named it, or it remembers it): the
 *   fact as the extractor found it, its first 16 words (a request, a command), a path whole.
 * A query is answered by `session.recall(query, { limit: 5 })`, and beside it by the scan a user would
 * write instead: the session's message events whose data holds the query, case-insensitive (`data::text
 * ILIKE '%query%'` on PostgreSQL, `data LIKE` on SQLite), newest first, LIMIT 5. Either finds the fact
 * when one of its 5 messages holds it as ReplacementText.holds decides, the test that found it missing
 * from the summary (verbatim for requests and commands, a whole word for error names, the number
 * canonically, a path whole or by its last two or more segments), on the message's text, its name and
 * its tool calls' names and arguments, raw and as parsed strings. A query without a letter or digit is
 * one recall refuses: a miss for it.
 * Standalone (SQLite): `npx tsx bench/recall-quality.ts`; in the suite: `--only recall`.
 */
import { randomUUID } from "node:crypto";
import {
  FIDELITY_KINDS,
  type FidelityKind,
  type ImportedSession,
  type Message,
  messageText,
  type PerKind,
  type StoredEvent,
  searchTerms,
} from "@palimpsest/core";
import { FidelityExtractor, ReplacementText } from "@palimpsest/core/testing";
import { compact, importSessions, openPalimpsest, type Palimpsest, type Session } from "@palimpsest/runtime";
import type { Engine } from "@palimpsest/store";
import Database from "better-sqlite3";
import pg from "pg";
import { canCompactInReplay, realSessions, realTranscriptFiles, windowFor } from "../test/support/real-transcripts.ts";
import { createSqliteFolder } from "./databases.ts";
import { WINDOW_FRACTIONS } from "./fidelity.ts";
import { markdownTable, num, progress } from "./stats.ts";

/** The issue's goal: recall@5 of the lost facts' messages, per kind. */
export const RECALL_GOAL = 0.95;

/** How a lost fact becomes a query (the header says each rule). */
export const QUERY_RULES = ["half-remembered", "own words"] as const;
/** One of QUERY_RULES. */
export type QueryRule = (typeof QUERY_RULES)[number];

/** Lost facts of one kind (or all), and how many of them each search found in its first 5, per query rule. */
export interface RecallQualityCounts {
  lost: number;
  found: Record<QueryRule, { recall: number; like: number }>;
}

/** Where a row's compactions come from: the offline summary policy replayed, or the transcript's own. */
export type RecallQualitySource = "offline summary (replayed)" | "Claude Code's own compactions";

/** One transcript file on one engine and source: its sessions measured (and those that never compacted), per kind. */
export interface RecallQualityRow {
  engine: Engine;
  source: RecallQualitySource;
  file: string;
  sessions: number;
  uncompacted: number;
  byKind: PerKind<RecallQualityCounts>;
  ms: number;
}

/** A compaction in the log: a supersede event. */
type Supersede = Extract<StoredEvent, { type: "messages.superseded" }>;

/** A source session in the store, its messages, and the compactions whose lost facts are searched. */
interface Compacted {
  session: Session;
  messages: Message[];
  compactions: Supersede[];
}

/** Each source of compactions: the sessions it takes, and how it puts one in the store compacted (undefined: never compacts). */
const SOURCES: readonly {
  name: RecallQualitySource;
  takes: (source: ImportedSession) => boolean;
  compacted: (runtime: Palimpsest, source: ImportedSession) => Promise<Compacted | undefined>;
}[] = [
  { name: "offline summary (replayed)", takes: canCompactInReplay, compacted: replayed },
  {
    name: "Claude Code's own compactions",
    takes: (source) => source.items.some((i) => i.kind === "compaction"),
    compacted: imported,
  },
];

/** Measures recall@5 of every compacting session of every real transcript, from both sources, on the database at `url`. */
export async function runRecallQualityBench(engine: Engine, url: string): Promise<RecallQualityRow[]> {
  const runtime = await openPalimpsest({ url });
  const like = likeSearch(engine, url);
  const rows: RecallQualityRow[] = [];
  try {
    for (const file of realTranscriptFiles()) {
      const sessions = realSessions(file);
      for (const { name, takes, compacted } of SOURCES) {
        const started = performance.now();
        const row: RecallQualityRow = {
          engine,
          source: name,
          file,
          sessions: 0,
          uncompacted: 0,
          byKind: emptyCounts(),
          ms: 0,
        };
        for (const source of sessions.filter(takes)) {
          const label = `recall quality, ${name}, ${source.externalId.slice(0, 12)}`;
          const session = await compacted(runtime, source);
          if (session === undefined) {
            progress(`${label}: never compacts, left out`);
            row.uncompacted += 1;
            continue;
          }
          row.sessions += 1;
          const counts = await measureSession(session, like.search, label);
          for (const kind of FIDELITY_KINDS) addCounts(row.byKind[kind], counts[kind]);
        }
        row.ms = performance.now() - started;
        if (row.sessions + row.uncompacted > 0) rows.push(row);
      }
    }
  } finally {
    await like.close();
    await runtime.close();
  }
  return rows;
}

/** A fact of a session's conversation. */
interface Fact {
  kind: FidelityKind;
  value: string;
}

/** Searches a session's messages for a query, returning the (at most 5) messages found. */
type Search = (sessionId: string, query: string) => Promise<Message[]>;

/** `source` appended to a new session, then compacted once by the offline summary policy. */
async function replayed(runtime: Palimpsest, source: ImportedSession): Promise<Compacted | undefined> {
  const messages = messagesOf(source);
  const session = await runtime.startSession({
    sessionId: `recall-quality-${randomUUID()}`,
    ...(source.model === undefined ? {} : { model: source.model }),
  });
  for (let from = 0; from < messages.length; from += 200) await session.append(messages.slice(from, from + 200));
  const compaction = await compactOnce(session, source);
  return compaction === undefined ? undefined : { session, messages, compactions: [compaction] };
}

/**
 * `source` imported as `palimpsest import` does (importSessions): each of its own compactions is a
 * supersede of everything live before it by its summary.
 */
async function imported(runtime: Palimpsest, source: ImportedSession): Promise<Compacted> {
  const [result] = await importSessions(runtime, [source]);
  if (result === undefined) throw new Error(`session ${source.externalId} was not imported`);
  const session = await runtime.resume(result.sessionId);
  const compactions = (await runtime.store.readStream(session.id)).filter(
    (e): e is Supersede => e.type === "messages.superseded" && e.data.replacements.some((r) => r.kind === "summary"),
  );
  return { session, messages: messagesOf(source), compactions };
}

function messagesOf(source: ImportedSession): Message[] {
  return source.items.flatMap((i) => (i.kind === "message" ? [i.message] : []));
}

/** The lost facts of one compacted session, searched both ways. */
async function measureSession(
  { session, messages, compactions }: Compacted,
  like: Search,
  label: string,
): Promise<PerKind<RecallQualityCounts>> {
  const counts = emptyCounts();
  for (const fact of await lostFacts(session, messages, compactions)) {
    const c = counts[fact.kind];
    c.lost += 1;
    for (const rule of QUERY_RULES) {
      const query = QUERY_FOR[rule](fact);
      const found = searchTerms(query).length === 0 ? [] : (await session.recall(query, { limit: 5 })).messages;
      if (found.some((m) => holdsFact(m.message, fact))) c.found[rule].recall += 1;
      if ((await like(session.id, query)).some((m) => holdsFact(m, fact))) c.found[rule].like += 1;
    }
  }
  const total = totalOf(counts);
  const figures = QUERY_RULES.map((r) => `${r}: recall@5 ${total.found[r].recall}, LIKE@5 ${total.found[r].like}`);
  progress(`${label}: ${total.lost} facts lost; ${figures.join("; ")}`);
  return counts;
}

/** One forced summary compaction, trying smaller windows until one leaves a middle; its supersede event. */
async function compactOnce(session: Session, source: ImportedSession): Promise<Supersede | undefined> {
  for (const fraction of WINDOW_FRACTIONS) {
    const contextWindow = await windowFor(source, fraction);
    const outcome = await compact(session, { policy: "summary", force: true, contextWindow });
    if (outcome.status === "compacted" && outcome.event.type === "messages.superseded") return outcome.event;
  }
  return undefined;
}

/**
 * The facts of the messages each compaction removed (those since the one before it) that its summary
 * does not hold and no message left in the session's view brings; each kind and value once.
 */
async function lostFacts(
  session: Session,
  messages: readonly Message[],
  compactions: readonly Supersede[],
): Promise<Fact[]> {
  const extractor = new FidelityExtractor();
  const factsOf = new Map(messages.map((m) => [m.id, extractor.items(m)]));
  const kept = new Set(
    session
      .view()
      .messages.flatMap((m) =>
        FIDELITY_KINDS.flatMap((kind) => factsOf.get(m.id)?.[kind].map((v) => key(kind, v)) ?? []),
      ),
  );
  const lost = new Map<string, Fact>();
  for (const compaction of compactions) {
    const removed = (await session.expand(compaction.data.compactionId)).map((e) => e.message.id);
    const summary = new ReplacementText(compaction.data.replacements.map((r) => searchableText(r.message)).join("\n"));
    for (const id of removed) {
      for (const kind of FIDELITY_KINDS) {
        for (const value of factsOf.get(id)?.[kind] ?? []) {
          if (!kept.has(key(kind, value)) && !summary.holds(kind, value)) lost.set(key(kind, value), { kind, value });
        }
      }
    }
  }
  return [...lost.values()];
}

function key(kind: FidelityKind, value: string): string {
  return `${kind}\u0000${value}`;
}

/** Each rule's query for a lost fact (the rules in the header). */
const QUERY_FOR: Record<QueryRule, (fact: Fact) => string> = {
  "half-remembered": halfRemembered,
  "own words": (fact) => wordsOf(fact.value).slice(0, 16).join(" "),
};

function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter((w) => w.length > 0);
}

/** The query of an agent that lost `fact` and does not know it verbatim. */
function halfRemembered(fact: Fact): string {
  const words = wordsOf(fact.value);
  switch (fact.kind) {
    case "userRequests":
      return words.slice(0, 5).join(" ");
    case "filePaths":
      return (
        fact.value
          .split("/")
          .filter((s) => s.length > 0)
          .at(-1) ?? fact.value
      );
    case "commands":
      return words.slice(0, 2).join(" ");
    case "errorNames":
    case "numbers":
      return fact.value;
  }
}

/** Whether `message` holds `fact` (ReplacementText.holds on its searchable text). */
function holdsFact(message: Message, fact: Fact): boolean {
  return new ReplacementText(searchableText(message)).holds(fact.kind, fact.value);
}

/** A message's text, name and tool calls' names and arguments, raw and as parsed strings (a command's quotes unescaped). */
function searchableText(message: Message): string {
  const parts = [message.name ?? "", messageText(message)];
  for (const call of message.toolCalls ?? []) parts.push(call.name, call.arguments, ...jsonStrings(call.arguments));
  return parts.join("\n");
}

/** The string values anywhere in a JSON text (none when it does not parse). */
function jsonStrings(json: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (typeof value === "object" && value !== null) for (const v of Object.values(value)) walk(v);
  };
  try {
    walk(JSON.parse(json));
  } catch {
    // Not JSON: the raw arguments are searched already.
  }
  return out;
}

/**
 * The search a user would write instead of recall: the session's message events whose data holds the
 * query, case-insensitive (ASCII on SQLite), newest first, LIMIT 5.
 */
function likeSearch(engine: Engine, url: string): { search: Search; close: () => Promise<void> } {
  const messagesOf = (rows: readonly { data: string }[]) =>
    rows.map((r) => (JSON.parse(r.data) as { message: Message }).message);
  if (engine === "sqlite") {
    const db = new Database(url, { readonly: true });
    const statement = db.prepare(
      "SELECT data FROM events WHERE session_id = ? AND type = 'message.appended' AND data LIKE ? ORDER BY seq DESC LIMIT 5",
    );
    return {
      search: async (sessionId, query) => messagesOf(statement.all(sessionId, `%${query}%`) as { data: string }[]),
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    search: async (sessionId, query) => {
      await connected;
      const { rows } = await client.query<{ data: string }>(
        "SELECT data::text AS data FROM events WHERE session_id = $1 AND type = 'message.appended' AND data::text ILIKE $2 ORDER BY seq DESC LIMIT 5",
        [sessionId, `%${query}%`],
      );
      return messagesOf(rows);
    },
    close: () => client.end(),
  };
}

function emptyCounts(): PerKind<RecallQualityCounts> {
  const counts = {} as PerKind<RecallQualityCounts>;
  for (const kind of FIDELITY_KINDS) counts[kind] = noCounts();
  return counts;
}

function noCounts(): RecallQualityCounts {
  return {
    lost: 0,
    found: { "half-remembered": { recall: 0, like: 0 }, "own words": { recall: 0, like: 0 } },
  };
}

function addCounts(into: RecallQualityCounts, counts: RecallQualityCounts): void {
  into.lost += counts.lost;
  for (const rule of QUERY_RULES) {
    into.found[rule].recall += counts.found[rule].recall;
    into.found[rule].like += counts.found[rule].like;
  }
}

function totalOf(byKind: PerKind<RecallQualityCounts>): RecallQualityCounts {
  const total = noCounts();
  for (const kind of FIDELITY_KINDS) addCounts(total, byKind[kind]);
  return total;
}

/** `found/lost (share)`, or `-` when nothing was lost. */
function shareCell(found: number, lost: number): string {
  return lost === 0 ? "-" : `${found}/${lost} (${num((found / lost) * 100, 1)}%)`;
}

const KIND_NAMES: Record<FidelityKind, string> = {
  userRequests: "user requests",
  filePaths: "file paths",
  errorNames: "error names",
  commands: "commands",
  numbers: "numbers",
};

/** The markdown tables of each source of compactions under its name, as sourceTables makes them. */
export function recallQualityTables(rows: readonly RecallQualityRow[]): string {
  return SOURCES.flatMap(({ name }) => {
    const mine = rows.filter((r) => r.source === name);
    return mine.length === 0 ? [] : [`### ${name}\n\n${sourceTables(mine)}`];
  }).join("\n\n");
}

/** One source's tables: per engine and kind (with the goal), then per engine and transcript file. */
function sourceTables(rows: readonly RecallQualityRow[]): string {
  const engines = [...new Set(rows.map((r) => r.engine))];
  const byKind = markdownTable(
    [
      "engine",
      "kind",
      "facts lost",
      ...QUERY_RULES.flatMap((rule) => [`session.recall@5, ${rule}`, `LIKE@5, ${rule}`]),
      `goal ${num(RECALL_GOAL * 100)}% (${QUERY_RULES.join(" / ")})`,
    ],
    engines.flatMap((engine) => {
      const mine = rows.filter((r) => r.engine === engine);
      const pooled = (kind: FidelityKind) => {
        const c = noCounts();
        for (const r of mine) addCounts(c, r.byKind[kind]);
        return c;
      };
      const total = noCounts();
      const kindRows = FIDELITY_KINDS.map((kind) => {
        const c = pooled(kind);
        addCounts(total, c);
        return [engine, KIND_NAMES[kind], ...countCells(c)];
      });
      return [...kindRows, [engine, "**all**", ...countCells(total)]];
    }),
  );
  const byFile = markdownTable(
    [
      "engine",
      "transcript",
      "sessions",
      "facts lost",
      ...QUERY_RULES.flatMap((rule) => [`session.recall@5, ${rule}`, `LIKE@5, ${rule}`]),
    ],
    rows.map((r) => {
      const total = totalOf(r.byKind);
      return [
        r.engine,
        r.file.replace(/^claude-code\//, "cc/").replace(/([0-9a-f]{8})-[0-9a-f-]{27}/, "$1"),
        r.uncompacted === 0 ? `${r.sessions}` : `${r.sessions}; ${r.uncompacted} never compact`,
        total.lost,
        ...QUERY_RULES.flatMap((rule) => [
          shareCell(total.found[rule].recall, total.lost),
          shareCell(total.found[rule].like, total.lost),
        ]),
      ];
    }),
  );
  return `${byKind}\n\n${byFile}`;
}

function countCells(c: RecallQualityCounts): (string | number)[] {
  const met = (rule: QueryRule) => (c.found[rule].recall / c.lost >= RECALL_GOAL ? "met" : "short");
  return [
    c.lost,
    ...QUERY_RULES.flatMap((rule) => [shareCell(c.found[rule].recall, c.lost), shareCell(c.found[rule].like, c.lost)]),
    c.lost === 0 ? "-" : QUERY_RULES.map(met).join(" / "),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const folder = createSqliteFolder();
  const started = performance.now();
  try {
    console.log(recallQualityTables(await runRecallQualityBench("sqlite", folder.path("recall-quality.db"))));
  } finally {
    folder.drop();
  }
  progress(`recall quality: ${num((performance.now() - started) / 1000, 1)} s`);
}
