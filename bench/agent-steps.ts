/**
 * An agent's model steps through the public API (issue #32), beside a plain table, on a real Claude Code
 * session (spotter 8463c716): each step is its user prompt if any, the assistant reply and the tool results
 * that answer it, written as an agent writes it, with the real tokenizer (openPalimpsest's), compaction off:
 * - `session.append(step, { turnId })` then `session.completeTurn(turnId)` (two calls);
 * - `session.append(step, { turnId, completeTurn: true })` (one call: the step and its completion in one
 *   transaction);
 * - the same one call on a runtime opened with `search: false` (no terms written for recall), on a database
 *   of its own (as the plain table has: writers sharing a SQLite file share its WAL and its checkpoints):
 *   what the search index costs an append, measured beside it;
 * - the plain table: one row per message, one multi-row INSERT per step (raw-entry-table.ts).
 * The four are timed step by step, in an order that rotates each step, each into a session of its own
 * that grows over the run: at 1× the session, and at 4× (the session four times over, fresh ids).
 * And the first append in a fresh process: a child opens the runtime (openPalimpsest), starts a session and
 * appends 20 steps with `completeTurn`; its first append against the median of the later ones.
 *
 *   node_modules/.bin/tsx bench/agent-steps.ts [--quick]   (PostgreSQL when TEST_DATABASE_URL is set)
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Message } from "@palimpsest/core";
import { openPalimpsest, type Session } from "@palimpsest/runtime";
import { HAVE_TRANSCRIPTS, realSessions } from "../test/support/real-transcripts.ts";
import { createScratchDatabase } from "../test/support/scratch-postgres.ts";
import type { ClaudeEntry } from "./claude-entries.ts";
import { createSqliteFolder, postgresServerUrl } from "./databases.ts";
import { type FirstAppendRow, firstAppendFigures, firstAppendTable, runFirstAppendChildren } from "./first-append.ts";
import { postgresRawTable, type RawEntryTable, sqliteRawTable } from "./raw-entry-table.ts";
import { markdownTable, ms, num, percentile, progress, ratio } from "./stats.ts";

/** The real session the steps come from. */
const SOURCE = "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";

/** One engine at one size: each way's p50 and p99 per step, in ms. */
export interface AgentStepsRow {
  engine: "postgres" | "sqlite";
  /** Passes over the session (1×, 4×). */
  passes: number;
  steps: number;
  messages: number;
  plain: { p50: number; p99: number };
  twoCalls: { p50: number; p99: number };
  oneCall: { p50: number; p99: number };
  /** One call on a runtime that writes nothing to the search index (`search: false`). */
  unindexed: { p50: number; p99: number };
}

/**
 * The session's model steps: a step opens at a user message once the step holds a reply, and at an
 * assistant message that follows tool results (the next model call); replies in a row stay one step.
 */
export function agentSteps(messages: readonly Message[]): Message[][] {
  const steps: Message[][] = [];
  for (const message of messages) {
    const step = steps.at(-1);
    const opens =
      step === undefined ||
      (message.role === "user" && step.some((m) => m.role === "assistant")) ||
      (message.role === "assistant" && step.at(-1)?.role === "tool");
    if (opens) steps.push([message]);
    else step.push(message);
  }
  return steps;
}

/** The source session's steps (empty without the shared transcripts). */
export function sourceSteps(): Message[][] {
  if (!HAVE_TRANSCRIPTS) return [];
  const [source] = realSessions(SOURCE);
  return agentSteps(source?.items.flatMap((i) => (i.kind === "message" ? [i.message] : [])) ?? []);
}

/** A step with fresh ids for pass `pass` (tool call ids too, so each pass is a step of its own). */
export function freshStep(step: readonly Message[], pass: number): Message[] {
  const id = (value: string) => `${value}-p${pass}`;
  return step.map((m) => ({
    ...m,
    id: id(m.id),
    ...(m.toolCallId === undefined ? {} : { toolCallId: id(m.toolCallId) }),
    ...(m.toolCalls === undefined ? {} : { toolCalls: m.toolCalls.map((c) => ({ ...c, id: id(c.id) })) }),
  }));
}

/**
 * Writes the steps `passes` times four ways, rotating which goes first: through the runtime on the
 * database at `url`, without the search index on the one at `unindexedUrl`, and into `raw`.
 */
export async function runAgentStepsBench(
  engine: "postgres" | "sqlite",
  urls: { url: string; unindexedUrl: string },
  raw: RawEntryTable,
  passes: number,
): Promise<AgentStepsRow | undefined> {
  const { url, unindexedUrl } = urls;
  const steps = sourceSteps();
  if (steps.length === 0) return undefined;
  const runtime = await openPalimpsest({ url });
  const unindexing = await openPalimpsest({ url: unindexedUrl, search: false }).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  try {
    const model = "claude-sonnet-4";
    const [two, one] = [await runtime.startSession({ model }), await runtime.startSession({ model })];
    const bare = await unindexing.startSession({ model });
    const key = { projectKey: "bench", sessionId: `plain-${passes}` };
    const ways: {
      name: "plain" | "twoCalls" | "oneCall" | "unindexed";
      write: (step: Message[], turnId: string) => Promise<void>;
    }[] = [
      {
        name: "plain",
        write: (step) =>
          raw.append(
            key,
            step.map((m) => ({ ...m, uuid: m.id }) as unknown as ClaudeEntry),
          ),
      },
      {
        name: "twoCalls",
        write: async (step, turnId) => {
          await two.append(step, { turnId });
          await two.completeTurn(turnId);
        },
      },
      { name: "oneCall", write: (step, turnId) => appendStep(one, step, turnId) },
      { name: "unindexed", write: (step, turnId) => appendStep(bare, step, turnId) },
    ];
    const times = {
      plain: [] as number[],
      twoCalls: [] as number[],
      oneCall: [] as number[],
      unindexed: [] as number[],
    };
    let n = 0;
    for (let pass = 0; pass < passes; pass++) {
      for (const source of steps) {
        const step = freshStep(source, pass);
        for (let w = 0; w < ways.length; w++) {
          const way = ways[(n + w) % ways.length] as (typeof ways)[number];
          const start = performance.now();
          await way.write(step, `turn-${n}`);
          times[way.name].push(performance.now() - start);
        }
        n += 1;
      }
      progress(`agent steps ${engine} ${passes}×: pass ${pass + 1} written`);
    }
    const stats = (values: number[]) => ({ p50: percentile(values, 0.5), p99: percentile(values, 0.99) });
    return {
      engine,
      passes,
      steps: n,
      messages: steps.reduce((sum, s) => sum + s.length, 0) * passes,
      plain: stats(times.plain),
      twoCalls: stats(times.twoCalls),
      oneCall: stats(times.oneCall),
      unindexed: stats(times.unindexed),
    };
  } finally {
    await Promise.allSettled([runtime.close(), unindexing.close()]);
  }
}

/** One step and its turn's completion, in one append. */
async function appendStep(session: Session, step: Message[], turnId: string): Promise<void> {
  await session.append(step, { turnId, completeTurn: true });
}

/** The child: open, start a session, append 20 steps with their completion; prints its figures as JSON. */
async function firstAppendChild(url: string): Promise<void> {
  const steps = sourceSteps().slice(0, 20);
  const started = performance.now();
  const runtime = await openPalimpsest({ url });
  const openMs = performance.now() - started;
  try {
    const session = await runtime.startSession({ model: "claude-sonnet-4" });
    const times: number[] = [];
    for (const [n, step] of steps.entries()) {
      const start = performance.now();
      await appendStep(session, freshStep(step, Date.now()), `turn-${n}`);
      times.push(performance.now() - start);
    }
    console.log(JSON.stringify(firstAppendFigures(openMs, times)));
  } finally {
    await runtime.close();
  }
}

/** The per-step table (ratios to the plain table) and the first-append table. */
export function agentStepsTables(rows: readonly AgentStepsRow[], first: readonly FirstAppendRow[]): string {
  const steps = markdownTable(
    [
      "engine",
      "session",
      "steps / messages",
      "plain table p50 / p99",
      "append + completeTurn p50 / p99",
      "vs plain",
      "append with completeTurn p50 / p99",
      "vs plain",
      "the same, search off p50 / p99",
      "vs plain",
      "the index's share of the step (p50)",
    ],
    rows.map((r) => [
      r.engine,
      `${r.passes}×`,
      `${num(r.steps)} / ${num(r.messages)}`,
      `${ms(r.plain.p50)} / ${ms(r.plain.p99)}`,
      `${ms(r.twoCalls.p50)} / ${ms(r.twoCalls.p99)}`,
      `${ratio(r.twoCalls.p50 / r.plain.p50)} / ${ratio(r.twoCalls.p99 / r.plain.p99)}`,
      `${ms(r.oneCall.p50)} / ${ms(r.oneCall.p99)}`,
      `${ratio(r.oneCall.p50 / r.plain.p50)} / ${ratio(r.oneCall.p99 / r.plain.p99)}`,
      `${ms(r.unindexed.p50)} / ${ms(r.unindexed.p99)}`,
      `${ratio(r.unindexed.p50 / r.plain.p50)} / ${ratio(r.unindexed.p99 / r.plain.p99)}`,
      `${Math.round((100 * (r.oneCall.p50 - r.unindexed.p50)) / r.oneCall.p50)}%`,
    ]),
  );
  return `${steps}\n\n${firstAppendTable("openPalimpsest", first)}`;
}

/** Where the suite writes: a database of its own per label (a SQLite file or a PostgreSQL scratch database), and a SQLite file path. */
export interface AgentStepsPlaces {
  database(engine: "postgres" | "sqlite", label: string): Promise<string>;
  sqliteFile(name: string): string;
}

/** The engines given: 1× and 4× (1× only with `quick`), then the fresh processes. */
export async function runAgentStepsSuite(
  engines: readonly ("postgres" | "sqlite")[],
  places: AgentStepsPlaces,
  quick: boolean,
): Promise<{ rows: AgentStepsRow[]; first: FirstAppendRow[] }> {
  const rows: AgentStepsRow[] = [];
  const first: FirstAppendRow[] = [];
  if (!HAVE_TRANSCRIPTS) return { rows, first };
  for (const engine of engines) {
    for (const passes of quick ? [1] : [1, 4]) {
      const url = await places.database(engine, `agent_steps_${passes}`);
      const unindexedUrl = await places.database(engine, `agent_steps_${passes}_unindexed`);
      const raw =
        engine === "postgres"
          ? await postgresRawTable(url)
          : sqliteRawTable(places.sqliteFile(`agent-steps-raw-${passes}.db`));
      try {
        const row = await runAgentStepsBench(engine, { url, unindexedUrl }, raw, passes);
        if (row !== undefined) rows.push(row);
      } finally {
        await raw.close();
      }
    }
    const url = await places.database(engine, "agent_first");
    first.push(runFirstAppendChildren(fileURLToPath(import.meta.url), engine, url, quick ? 3 : 7));
  }
  return { rows, first };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv[2] === "--child") await firstAppendChild(process.argv[3] ?? "");
  else {
    const folder = createSqliteFolder();
    const server = postgresServerUrl();
    const drops: (() => Promise<void>)[] = [];
    const places: AgentStepsPlaces = {
      async database(engine, label) {
        if (engine === "sqlite" || server === undefined) return folder.path(`${label}.db`);
        const made = await createScratchDatabase(server, `bench_${label}`);
        drops.push(made.drop);
        return made.url;
      },
      sqliteFile: (name) => folder.path(name),
    };
    try {
      const engines = server === undefined ? (["sqlite"] as const) : (["postgres", "sqlite"] as const);
      const { rows, first } = await runAgentStepsSuite(engines, places, process.argv.includes("--quick"));
      console.log(rows.length === 0 ? "No shared transcripts: nothing measured." : agentStepsTables(rows, first));
    } finally {
      for (const drop of drops) await drop();
      folder.drop();
    }
  }
}
