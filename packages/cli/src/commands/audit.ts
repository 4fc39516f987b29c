import { ValidationError } from "@palimpsest/core";
import type { AsOf } from "@palimpsest/projections";
import {
  AuditReadModels,
  COMPACTION_GROUPS,
  type CompactionFilter,
  FAILURE_GROUPS,
  type FailureFilter,
  openEventStore,
} from "@palimpsest/store";
import type { Command } from "commander";
import { integerFlag, listFlag } from "../flags.ts";
import { emit, type GlobalOptions } from "../output.ts";
import { printRequestBody, requestFormat } from "../request-body.ts";
import { databaseUrl, sessionIdByPrefix } from "../runtime.ts";
import {
  renderCompactions,
  renderFailures,
  renderLineage,
  renderLineageTrees,
  renderRebuild,
  renderTotals,
  renderTrails,
  renderViewAsOf,
} from "./audit-render.ts";

interface FilterFlags {
  session?: string;
  since?: string;
  until?: string;
  mode?: string;
  policy?: string;
  profile?: string;
  model?: string;
  promptVersion?: string;
  trigger?: string;
  reason?: string;
}

/**
 * `audit …`: questions across sessions answered from the audit read models (caught up with the log
 * before each answer): compactions, totals, failures, message and compaction trails, lineage, the view
 * as of a point in time, and rebuilding the models from the log.
 */
export function registerAudit(program: Command): void {
  const audit = program
    .command("audit")
    .description("audit compactions across sessions: filters, totals, trails, lineage, point-in-time views");

  withCompactionFilters(audit.command("compactions"))
    .description("list compactions (oldest first) matching the filters")
    .option("--limit <n>", "at most this many")
    .action(async (flags: FilterFlags & { limit?: string }) => {
      const limit = flags.limit === undefined ? undefined : integerFlag(flags.limit, "--limit", 1);
      await answer(
        program,
        (models) => compactionFilter(models, flags).then((f) => models.compactions(f, limit)),
        renderCompactions,
      );
    });

  withCompactionFilters(audit.command("totals"))
    .description("count compactions and sum the tokens they reclaimed, per group")
    .option("--by <groups>", `comma-separated: ${COMPACTION_GROUPS.join(", ")}`, "")
    .action(async (flags: FilterFlags & { by: string }) => {
      const groups = listFlag(flags.by, "--by", COMPACTION_GROUPS);
      await answer(
        program,
        async (models) => models.compactionTotals(await compactionFilter(models, flags), groups),
        renderTotals,
      );
    });

  withTimeFilters(audit.command("failures"))
    .description("count failed compaction attempts, by reason class unless --by says otherwise")
    .option("--mode <mode>", "only this compaction mode")
    .option("--reason <reason>", "only this failure class (timeout, auth, rate-limited, …)")
    .option("--by <groups>", `comma-separated: ${FAILURE_GROUPS.join(", ")}`, "reason")
    .action(async (flags: FilterFlags & { by: string }) => {
      const groups = listFlag(flags.by, "--by", FAILURE_GROUPS);
      await answer(
        program,
        async (models) => models.failureTotals(await failureFilter(models, flags), groups),
        renderFailures,
      );
    });

  audit
    .command("message <message-id>")
    .description("which compaction superseded a message and what replaced it; or what a summary replaced")
    .option("--session <session>", "only in this session (id or prefix)")
    .action(async (messageId: string, flags: { session?: string }) => {
      await answer(
        program,
        async (models) => models.message(messageId, await optionalSession(models, flags.session)),
        (t) => renderTrails(t, `message ${messageId}`),
      );
    });

  audit
    .command("compaction <compaction-id>")
    .description("what a compaction took out of the view and what it put in")
    .option("--session <session>", "only in this session (id or prefix)")
    .action(async (compactionId: string, flags: { session?: string }) => {
      await answer(
        program,
        async (models) =>
          (await models.compaction(compactionId, await optionalSession(models, flags.session))).map((trail) => ({
            sessionId: trail.compaction.sessionId,
            messageId: compactionId,
            writtenBy: trail,
          })),
        (t) => renderTrails(t, `compaction ${compactionId}`),
      );
    });

  audit
    .command("lineage [session]")
    .description("a session's ancestors, descendants and hand-off tip; without one, every lineage tree")
    .option("--limit <n>", "without a session: at most this many trees")
    .action(async (id: string | undefined, flags: { limit?: string }) => {
      if (id === undefined) {
        const limit = flags.limit === undefined ? undefined : integerFlag(flags.limit, "--limit", 1);
        await answer(program, (models) => models.lineageTrees(limit), renderLineageTrees);
        return;
      }
      await answer(program, async (models) => models.lineage(await sessionIdByPrefix(models.store, id)), renderLineage);
    });

  audit
    .command("view <session>")
    .description("the active view as it stood after an event (--seq), at a time (--time) or after a turn (--turn)")
    .option("--seq <n>", "just after this event of the session")
    .option("--time <iso>", "at this time (the last event at or before it)")
    .option("--turn <n>", "at the end of the n-th completed turn (1 = first)")
    .option("--format <format>", "openai | anthropic (print the view as that provider's request body)")
    .action(async (id: string, flags: { seq?: string; time?: string; turn?: string; format?: string }) => {
      const at = asOf(flags);
      const format = requestFormat(flags.format);
      const global = program.opts<GlobalOptions>();
      const result = await withAudit(global, async (models) =>
        models.viewAsOf(await sessionIdByPrefix(models.store, id), at),
      );
      if (format === undefined) emit(global, result, renderViewAsOf);
      else printRequestBody(result.view.messages, format);
    });

  audit
    .command("rebuild")
    .description("rebuild every audit read model from the log, checking it against the live one")
    .option("--check", "only compare the rebuilt models with the live ones; change nothing")
    .action(async (flags: { check?: boolean }) => {
      await answer(
        program,
        (models) =>
          models
            .rebuild({
              checkOnly: flags.check === true,
              onProgress: ({ events }) => process.stderr.write(`\rrebuilding audit read models: ${events} events`),
            })
            .finally(() => process.stderr.write("\n")),
        renderRebuild,
      );
    });
}

/** Opens the store and its audit read models, runs `work`, and always closes the store. */
async function withAudit<T>(global: GlobalOptions, work: (models: AuditModels) => Promise<T>): Promise<T> {
  const store = await openEventStore(databaseUrl(global));
  try {
    return await work(Object.assign(new AuditReadModels(store), { store }));
  } finally {
    await store.close();
  }
}

type AuditModels = AuditReadModels & { store: Awaited<ReturnType<typeof openEventStore>> };

/** Answers one question and prints it (as JSON with --json). */
async function answer<T>(program: Command, ask: (models: AuditModels) => Promise<T>, render: (answer: T) => string) {
  const global = program.opts<GlobalOptions>();
  emit(global, await withAudit(global, ask), render);
}

function withTimeFilters(command: Command): Command {
  return command
    .option("--session <session>", "only this session (id or prefix)")
    .option("--since <iso>", "at or after this time")
    .option("--until <iso>", "before this time");
}

function withCompactionFilters(command: Command): Command {
  return withTimeFilters(command)
    .option("--mode <mode>", "summary, prune, micro, defrag, trim, retract, precompact or import")
    .option("--policy <policy>", "the policy that produced it")
    .option("--profile <profile>", "the provider profile it ran under")
    .option("--model <model>", "the summarizer model")
    .option("--prompt-version <version>", "the summarizer prompt version")
    .option("--trigger <trigger>", "manual, auto, import or background");
}

async function compactionFilter(models: AuditModels, flags: FilterFlags): Promise<CompactionFilter> {
  const { model, promptVersion, ...rest } = flags;
  return {
    ...(await timeFilter(models, rest)),
    ...defined({ mode: flags.mode, policy: flags.policy, profile: flags.profile, trigger: flags.trigger }),
    ...defined({ summarizerModel: model, promptVersion }),
  };
}

async function failureFilter(models: AuditModels, flags: FilterFlags): Promise<FailureFilter> {
  return { ...(await timeFilter(models, flags)), ...defined({ mode: flags.mode, reason: flags.reason }) };
}

async function timeFilter(models: AuditModels, flags: FilterFlags) {
  const sessionId = await optionalSession(models, flags.session);
  return defined({ sessionId, since: flags.since, until: flags.until });
}

async function optionalSession(models: AuditModels, id: string | undefined): Promise<string | undefined> {
  return id === undefined ? undefined : sessionIdByPrefix(models.store, id);
}

function defined<T extends Record<string, string | undefined>>(fields: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: string };
}

function asOf(flags: { seq?: string; time?: string; turn?: string }): AsOf {
  const given = [flags.seq, flags.time, flags.turn].filter((f) => f !== undefined).length;
  if (given !== 1) {
    throw new ValidationError("give exactly one of --seq, --time or --turn", [
      "point in time: --seq, --time or --turn",
    ]);
  }
  if (flags.seq !== undefined) return { seq: integerFlag(flags.seq, "--seq", 0) };
  if (flags.turn !== undefined) return { turn: integerFlag(flags.turn, "--turn", 1) };
  return { time: flags.time ?? "" };
}
