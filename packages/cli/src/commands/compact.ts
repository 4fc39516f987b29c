import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  definedFields,
  describeProfileChoice,
  NotFoundError,
  PROVIDER_PROFILES,
  type ProfileChoice,
  type StoredEvent,
  ValidationError,
} from "@palimpsest/core";
import {
  type CompactOutcome,
  compact,
  compactRange,
  POLICIES,
  POLICY_NAMES,
  type PolicyName,
  profileChoiceFor,
} from "@palimpsest/runtime";
import { type Command, Option } from "commander";
import type { CliIo } from "../cli-io.ts";
import { compactionLine } from "../event-line.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions } from "../output.ts";
import { PROFILE_HELP } from "../profile-help.ts";
import { resumeByPrefix, withRuntime } from "../runtime.ts";
import { chooseSummarizer, SUMMARIZER_NAMES, type SummarizerFlags } from "../summarizer-choice.ts";

interface CompactFlags extends SummarizerFlags {
  summaryFile?: string;
  from?: string;
  to?: string;
  policy?: PolicyName;
  profile?: string;
  contextWindow?: number;
  force?: boolean;
  allowGrowth?: boolean;
}

function describe(event: StoredEvent): string {
  return event.type === "messages.superseded" ? compactionLine(event.data) : `recorded ${event.type}`;
}

function outcomeText(outcome: Exclude<CompactOutcome, { status: "failed" }>, profile: ProfileChoice): string {
  const line = `profile: ${describeProfileChoice(profile)}`;
  if (outcome.status === "skipped") return `nothing to do: ${outcome.reason}\n${line}`;
  return `${describe(outcome.event)}\n${outcome.plan.reason}\n${line}`;
}

/**
 * `compact <session>`: one compaction now. With `--summary-file --from --to`, an explicit one over that
 * range; otherwise the policy runs (forced with `--force`) and prints what it superseded and reclaimed.
 */
export function registerCompact(program: Command, io: CliIo): void {
  program
    .command("compact <session>")
    .description("compact a session now: by policy, or explicitly with --summary-file --from --to")
    .addOption(
      new Option(
        "--policy <policy>",
        `${POLICIES.map((p) => `${p.name}: ${p.summary}`).join("; ")} (default: the profile's preference)`,
      ).choices(POLICY_NAMES),
    )
    .addOption(new Option("--profile <profile>", PROFILE_HELP).choices(Object.keys(PROVIDER_PROFILES)))
    .addOption(
      integerOption(
        "--context-window <tokens>",
        "the model's context window (default: the session's, else 200000)",
        1_000,
      ),
    )
    .addOption(
      new Option("--summarizer <name>", "default offline; keys from the environment").choices(SUMMARIZER_NAMES),
    )
    .option("--summarizer-model <model>", "model for an openai/anthropic summarizer (or PALIMPSEST_SUMMARIZER_MODEL)")
    .option("--summarizer-url <url>", "base URL of an OpenAI-compatible or Anthropic endpoint")
    .option("--force", "compact even under the threshold or while backing off")
    .option("--allow-growth", "write the compaction even if it does not shrink the view (refused otherwise)")
    .option("--summary-file <file>", "explicit compaction: file holding the summary text")
    .option("--from <message-id>", "explicit compaction: first live message to supersede")
    .option("--to <message-id>", "explicit compaction: last live message (widened over its tool results)")
    .action(async (id: string, flags: CompactFlags) => {
      const global = program.opts<GlobalOptions>();
      if (flags.summaryFile !== undefined || flags.from !== undefined || flags.to !== undefined) {
        await explicit(io, global, id, flags);
        return;
      }
      const summarizer = await chooseSummarizer(flags, io);
      const window = flags.contextWindow;
      const settings = definedFields({ policy: flags.policy, profile: flags.profile, contextWindow: window });
      const { outcome, profile } = await withRuntime(global, io, async (runtime) => {
        const session = await resumeByPrefix(runtime, id);
        const profile = profileChoiceFor(settings, session.state.started);
        return {
          outcome: await compact(session, {
            ...settings,
            summarizer,
            force: flags.force === true,
            allowGrowth: flags.allowGrowth === true,
          }),
          profile,
        };
      });
      // A failed summary is recorded (compaction-failed) and the view is untouched; the command fails with its cause.
      if (outcome.status === "failed") throw outcome.error;
      emit(io, global, outcome.status === "compacted" ? outcome.event : outcome, () => outcomeText(outcome, profile));
    });
}

async function explicit(io: CliIo, global: GlobalOptions, id: string, flags: CompactFlags): Promise<void> {
  const { summaryFile, from, to } = flags;
  if (summaryFile === undefined || from === undefined || to === undefined) {
    throw new ValidationError("an explicit compaction needs --summary-file, --from and --to", ["give all three"]);
  }
  const summary = await readFile(resolve(io.cwd, summaryFile), "utf8").catch((cause: unknown) => {
    throw new NotFoundError("file", summaryFile, { cause });
  });
  const events = await withRuntime(global, io, async (runtime) =>
    compactRange(await resumeByPrefix(runtime, id), { fromId: from, toId: to, summary }),
  );
  const event = events[0];
  if (event === undefined) throw new ValidationError("no compaction was recorded", []);
  emit(io, global, event, describe);
}
