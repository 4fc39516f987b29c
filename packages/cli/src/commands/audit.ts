import { NotFoundError } from "@palimpsest/core";
import { AuditReadModels, COMPACTION_GROUPS, FAILURE_GROUPS, type openEventStore } from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { openCommandStore } from "../database.ts";
import { integerOption, listOption } from "../flags.ts";
import { sessionIdByPrefix, uniqueByPrefix } from "../id-prefix.ts";
import { emit, type GlobalOptions } from "../output.ts";
import { progressOption, showsProgress } from "../progress-flag.ts";
import { printRequestBody, type RequestFormat, requestFormatOption } from "../request-body.ts";
import {
  type AsOfFlags,
  asOf,
  compactionFilter,
  type FilterFlags,
  failureFilter,
  optionalSession,
  withAsOf,
  withCompactionFilters,
  withTimeFilters,
} from "./audit-flags.ts";
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

/**
 * `audit …`: questions across sessions answered from the audit read models (caught up with the log
 * before each answer): compactions, totals, failures, message and compaction trails, lineage, the view
 * as of a point in time, and rebuilding the models from the log.
 */
export function registerAudit(program: Command, io: CliIo): void {
  const audit = program
    .command("audit")
    .description("audit compactions across sessions: filters, totals, trails, lineage, point-in-time views")
    .addOption(
      integerOption(
        "--visibility-wait-ms <ms>",
        "PostgreSQL: how long to wait for commits an open transaction still hides before answering",
        0,
      ).default(5000),
    );
  const options = (): AuditOptions => ({ ...program.opts<GlobalOptions>(), ...audit.opts<AuditOptions>() });

  withCompactionFilters(audit.command("compactions"))
    .description("list compactions (oldest first) matching the filters")
    .addOption(integerOption("--limit <n>", "at most this many", 1))
    .action(async (flags: FilterFlags & { limit?: number }) => {
      const { limit } = flags;
      await answer(
        io,
        options(),
        (models) => compactionFilter(models.store, flags).then((f) => models.compactions(f, limit)),
        renderCompactions,
      );
    });

  withCompactionFilters(audit.command("totals"))
    .description("count compactions and sum the tokens they reclaimed, per group")
    .addOption(listOption("--by <groups>", "group by", COMPACTION_GROUPS, []))
    .action(async (flags: FilterFlags & { by: (typeof COMPACTION_GROUPS)[number][] }) => {
      const groups = flags.by;
      await answer(
        io,
        options(),
        async (models) => models.compactionTotals(await compactionFilter(models.store, flags), groups),
        renderTotals,
      );
    });

  withTimeFilters(audit.command("failures"))
    .description("count failed compaction attempts, by reason class unless --by says otherwise")
    .option("--mode <mode>", "only this compaction mode")
    .option("--reason <reason>", "only this failure class (timeout, auth, rate-limited, …)")
    .addOption(listOption("--by <groups>", "group by", FAILURE_GROUPS, ["reason"]))
    .action(async (flags: FilterFlags & { by: (typeof FAILURE_GROUPS)[number][] }) => {
      const groups = flags.by;
      await answer(
        io,
        options(),
        async (models) => models.failureTotals(await failureFilter(models.store, flags), groups),
        renderFailures,
      );
    });

  audit
    .command("message <message-id>")
    .description("which compaction superseded a message and what replaced it; or what a summary replaced")
    .option("--session <session>", "only in this session (id or prefix)")
    .action(async (messageId: string, flags: { session?: string }) => {
      await answer(
        io,
        options(),
        async (models) => {
          const trails = await models.message(messageId, await optionalSession(models.store, flags.session));
          if (trails.length === 0) throw new NotFoundError("message", messageId);
          return trails;
        },
        (t) => renderTrails(t, `message ${messageId}`),
      );
    });

  audit
    .command("compaction <compaction-id>")
    .description("what a compaction took out of the view and what it put in")
    .option("--session <session>", "only in this session (id or prefix)")
    .action(async (compactionId: string, flags: { session?: string }) => {
      await answer(
        io,
        options(),
        async (models) => {
          const sessionId = await optionalSession(models.store, flags.session);
          const exact = await models.compaction(compactionId, sessionId);
          const id =
            exact.length > 0
              ? compactionId
              : uniqueByPrefix(
                  "compaction",
                  compactionId,
                  (await models.compactions(sessionId === undefined ? {} : { sessionId })).map((c) => c.compactionId),
                );
          return (id === compactionId ? exact : await models.compaction(id, sessionId)).map((trail) => ({
            sessionId: trail.compaction.sessionId,
            messageId: id,
            writtenBy: trail,
          }));
        },
        (t) => renderTrails(t, `compaction ${compactionId}`),
      );
    });

  audit
    .command("lineage [session]")
    .description("a session's ancestors, descendants and hand-off tip; without one, every lineage tree")
    .addOption(integerOption("--limit <n>", "without a session: at most this many trees", 1))
    .action(async (id: string | undefined, flags: { limit?: number }) => {
      if (id === undefined) {
        await answer(io, options(), (models) => models.lineageTrees(flags.limit), renderLineageTrees);
        return;
      }
      await answer(
        io,
        options(),
        async (models) => models.lineage(await sessionIdByPrefix(models.store, id)),
        renderLineage,
      );
    });

  withAsOf(audit.command("view <session>"))
    .description("the active view as it stood after an event (--seq), at a time (--time) or after a turn (--turn)")
    .addOption(requestFormatOption())
    .action(async (id: string, flags: AsOfFlags & { format?: RequestFormat }) => {
      const at = asOf(flags);
      const { format } = flags;
      const global = options();
      const result = await withAudit(io, global, async (models) =>
        models.viewAsOf(await sessionIdByPrefix(models.store, id), at),
      );
      if (format === undefined) emit(io, global, result, renderViewAsOf);
      else printRequestBody(io, result.view.messages, format);
    });

  audit
    .command("rebuild")
    .description("rebuild every audit read model from the log, checking it against the live one")
    .option("--check", "only compare the rebuilt models with the live ones; change nothing")
    .addOption(progressOption())
    .action(async (flags: { check?: boolean; progress?: boolean }) => {
      // On a terminal one line rewritten in place; with --progress elsewhere, a line each time.
      const [lead, tail] = io.stderrIsTTY === true ? ["\r", ""] : ["", "\n"];
      const shown = showsProgress(io, flags);
      await answer(
        io,
        options(),
        (models) =>
          models
            .rebuild({
              checkOnly: flags.check === true,
              ...(shown
                ? {
                    onProgress: ({ events }) =>
                      io.stderr(`${lead}rebuilding audit read models: ${events} events${tail}`),
                  }
                : {}),
            })
            .finally(() => {
              if (shown && lead === "\r") io.stderr("\n");
            }),
        renderRebuild,
      );
    });
}

/** Opens the store and its audit read models, runs `work`, and always closes the store. */
async function withAudit<T>(io: CliIo, global: AuditOptions, work: (models: AuditModels) => Promise<T>): Promise<T> {
  const { visibilityWaitMs } = global;
  const store = await openCommandStore(global, io, "read");
  try {
    return await work(Object.assign(new AuditReadModels(store, { visibilityWaitMs }), { store }));
  } finally {
    await store.close();
  }
}

type AuditModels = AuditReadModels & { store: Awaited<ReturnType<typeof openEventStore>> };

/** The global options and the audit command's own. */
type AuditOptions = GlobalOptions & { visibilityWaitMs: number };

/** Answers one question and prints it (as JSON with --json). */
async function answer<T>(
  io: CliIo,
  options: AuditOptions,
  ask: (models: AuditModels) => Promise<T>,
  render: (answer: T) => string,
) {
  emit(io, options, await withAudit(io, options, ask), render);
}
