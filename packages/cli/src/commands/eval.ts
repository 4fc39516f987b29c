import { basename } from "node:path";
import {
  type CompactionFidelity,
  definedFields,
  describeProfileChoice,
  FIDELITY_KINDS,
  FidelityAccumulator,
  type FidelitySummary,
  type ImportedSession,
  PROVIDER_PROFILES,
  type ProfileChoice,
  parseTranscript,
  sourceFidelity,
  ValidationError,
} from "@palimpsest/core";
import { createTokenCounter, encodingForModel } from "@palimpsest/core/tokenizer";
import { REPLAY_RUN_NAMES, type ReplayRunName, replayTranscript } from "@palimpsest/eval";
import { type Command, Option } from "commander";
import type { CliIo } from "../cli-io.ts";
import { type FidelityRow, fidelityTable } from "../fidelity-table.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { PROFILE_HELP } from "../profile-help.ts";
import { readTranscriptFile } from "../transcript-file.ts";

interface EvalFlags {
  policy: ReplayRunName;
  profile?: string;
  contextWindow: number;
  maxOutputTokens?: number;
  mainOnly?: boolean;
}

/** One compaction as `eval` lists it: who made it, before which request, and what it kept. */
interface EvalCompaction extends CompactionFidelity {
  by: string;
  kind: string;
  requestIndex: number;
}

/** What `eval --json` prints: the policy's fidelity on the transcript, and the source's own compactions'. */
interface EvalOutput {
  file: string;
  policy: ReplayRunName;
  profile: string;
  /** Why that profile: given, or inferred from the model or the format (docs/compaction.md, "Profiles"). */
  profileChoice: ProfileChoice | undefined;
  contextWindow: number;
  threshold: number | null;
  fidelity: FidelitySummary;
  /** The transcript's own compactions (Claude Code's), measured the same way; null when it has none. */
  source: FidelitySummary | null;
  compactions: EvalCompaction[];
}

/**
 * `eval <file> [--policy p] [--profile] [--context-window N]`: the fidelity of one policy on one transcript
 * (docs/fidelity.md) — the mean recall over requests of what the conversation held, each kind apart, and
 * what each compaction's replacements kept of what it removed — beside the transcript's own compactions.
 */
export function registerEval(program: Command, io: CliIo): void {
  program
    .command("eval <file>")
    .description(
      "measure what a compaction policy's prompts keep of a transcript (fidelity), beside its own compactions",
    )
    .addOption(new Option("--policy <policy>", "the run to measure").choices(REPLAY_RUN_NAMES).default("summary"))
    .addOption(new Option("--profile <profile>", PROFILE_HELP).choices(Object.keys(PROVIDER_PROFILES)))
    .addOption(integerOption("--context-window <tokens>", "the model's context window", 1).default(200_000))
    .addOption(
      integerOption(
        "--max-output-tokens <tokens>",
        "tokens reserved for the answer (default: the profile's, ≤ window/4)",
        1,
      ),
    )
    .option("--main-only", "measure only the main sessions, not subagent threads")
    .action(async (file: string, opts: EvalFlags) => {
      const global = program.opts<GlobalOptions>();
      const text = await readTranscriptFile(io, file);
      const parsed = parseTranscript(text, { fileName: basename(file) });
      const sessions = opts.mainOnly === true ? parsed.filter((s) => s.parentExternalId === undefined) : parsed;
      if (sessions.length === 0) throw new ValidationError(`${basename(file)}: no sessions to measure`, [file]);
      const replay = await replayTranscript(sessions, {
        policies: [opts.policy],
        ...definedFields({ profile: opts.profile }),
        contextWindow: opts.contextWindow,
        ...definedFields({ maxOutputTokens: opts.maxOutputTokens }),
      });
      const run = replay.policies[0];
      if (run === undefined) throw new ValidationError(`${basename(file)}: the replay produced no run`, [file]);
      const own = await ownCompactions(sessions);
      const output: EvalOutput = {
        file: basename(file),
        policy: opts.policy,
        profile: run.profile,
        profileChoice: replay.profile,
        contextWindow: run.contextWindow,
        threshold: run.threshold,
        fidelity: run.fidelity,
        source: own.summary,
        compactions: [
          ...run.compactions.map((c) => ({
            by: opts.policy,
            kind: c.kind,
            requestIndex: c.requestIndex,
            ...c.fidelity,
          })),
          ...own.compactions,
        ],
      };
      emit(io, global, output, render);
    });
}

/** The transcript's own compactions measured, sized in each session's model's encoding; summary null without any. */
async function ownCompactions(
  sessions: readonly ImportedSession[],
): Promise<{ summary: FidelitySummary | null; compactions: EvalCompaction[] }> {
  const accumulator = new FidelityAccumulator();
  const compactions: EvalCompaction[] = [];
  for (const session of sessions) {
    if (!session.items.some((i) => i.kind === "compaction")) continue;
    const counter = await createTokenCounter(encodingForModel(session.model));
    const measured = sourceFidelity(session, (m) => counter.countMessage(m));
    for (const recall of measured.recalls) accumulator.recordRequest(recall);
    accumulator.recordHeld(measured.held);
    for (const c of measured.compactions) {
      accumulator.recordCompaction(c);
      compactions.push({ ...c, by: `source (${session.format})`, kind: c.trigger });
    }
  }
  return { summary: compactions.length === 0 ? null : accumulator.summary(), compactions };
}

function render(output: EvalOutput): string {
  const rows: FidelityRow[] = [{ label: output.policy, fidelity: output.fidelity }];
  if (output.source !== null) rows.push({ label: "source's own", fidelity: output.source });
  const summary = fidelityTable(rows);
  const lines = [
    `${output.file}: ${output.policy}, profile: ${output.profileChoice === undefined ? output.profile : describeProfileChoice(output.profileChoice)}, context window ${output.contextWindow}` +
      (output.threshold === null ? "" : `, threshold ${output.threshold}`),
    table(summary.header, summary.rows),
  ];
  if (output.compactions.length > 0) {
    lines.push(
      "",
      table(
        ["by", "kind", "before request", "removed tokens", "size", ...FIDELITY_KINDS.map((k) => `kept ${k}`)],
        output.compactions.map((c) => [
          c.by,
          c.kind,
          c.requestIndex + 1,
          c.removedTokens,
          c.removedTokens === 0 ? "-" : `${((c.replacementTokens / c.removedTokens) * 100).toFixed(1)}%`,
          ...FIDELITY_KINDS.map((k) => (c.removed[k] === 0 ? "-" : `${c.kept[k]}/${c.removed[k]}`)),
        ]),
      ),
    );
  }
  return lines.join("\n");
}
