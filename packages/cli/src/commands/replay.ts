import { basename, resolve } from "node:path";
import {
  customProfile,
  definedFields,
  describeProfileChoice,
  type FieldComparison,
  KNOWN_MODELS,
  modelPrices,
  PROVIDER_PROFILES,
  parseTranscript,
  ValidationError,
} from "@palimpsest/core";
import {
  type PolicyReplay,
  REPLAY_RUN_NAMES,
  type ReplayRun,
  replayRun,
  replayTranscript,
  type SessionCacheSummary,
  type TranscriptReplay,
  transcriptProfileChoice,
  withMicro,
} from "@palimpsest/eval";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { CliIo } from "../cli-io.ts";
import { fidelityTable } from "../fidelity-table.ts";
import { dollars, integerOption } from "../flags.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { PROFILE_HELP } from "../profile-help.ts";
import { progressOption, showsProgress } from "../progress-flag.ts";
import { replayMetricsTable } from "../replay-metrics-table.ts";
import { replayReportData, replayWithSeries } from "../report-sources/replay-report-data.ts";
import { writeReport, writtenLine } from "../report-sources/write-report.ts";
import { readTranscriptFile } from "../transcript-file.ts";

const PROFILE_NAMES = Object.keys(PROVIDER_PROFILES);

/** Every entry lifetime a built-in profile offers by name (`--cache-ttl`), e.g. 5m, 1h, in-memory, 24h. */
const TTL_NAMES = [...new Set(Object.values(PROVIDER_PROFILES).flatMap((p) => Object.keys(p.cache.ttlChoices ?? {})))];

interface ReplayFlags {
  policy: string;
  compare?: ReplayRun[];
  micro?: boolean;
  precompact?: boolean;
  profile?: string;
  contextWindow: number;
  maxOutputTokens?: number;
  mainOnly?: boolean;
  html?: string;
  fixedPrefixTokens?: number;
  cacheTtl?: string;
  model?: string;
  summarizerModel?: string;
  lostFactUsd?: number;
  summaryBreakpoint?: boolean;
  summarizerReadsConversation?: boolean;
  progress?: boolean;
}

/**
 * `replay <file> [--policy p | --compare a,b,c] [--micro] [--profile] [--context-window N]`: replays a
 * transcript request by request under each run and prints one metrics row per run (`--json`: one object
 * each). `--micro` turns micro passes on in every run; with it, `--policy` names the backstop (default none).
 * `--precompact` runs background pre-compaction in every run with a batch policy: hits, misses by reason,
 * each batch compaction's synchronous ms (marked when it was a hit), time saved and wasted background work.
 * `--html <file>` also writes the comparison as a self-contained HTML report and prints where (`--json`: only that).
 * The cache model calibrates itself on the transcript's usage; `--fixed-prefix-tokens` and `--cache-ttl`
 * stand in where the usage does not tell, `--model` prices the agent's requests and `--summarizer-model`
 * the summarizer's calls (default: the agent's model; `--summarizer-reads-conversation` replays a summarizer
 * that reads each span inside the agent's own request, billed through its cache). `--lost-fact-usd` lets cost-optimal drop facts
 * when what it saves pays for them (default: it drops no more of the span's facts than summary would).
 * Progress lines go to stderr on a terminal, or with `--progress` (as `import`'s).
 */
export function registerReplay(program: Command, io: CliIo): void {
  program
    .command("replay <file>")
    .description("replay a transcript through the store under compaction policies and compare what they cost")
    .addOption(
      new Option("--policy <policy>", "the run (with --micro: the backstop)")
        .choices(REPLAY_RUN_NAMES)
        .default("summary"),
    )
    .addOption(
      new Option("--compare <policies>", "comma-separated runs to compare side by side (overrides --policy)").argParser(
        parseRuns,
      ),
    )
    .option("--micro", "micro-compaction after every request in every run (no backstop unless --policy or --compare)")
    .option("--precompact", "background pre-compaction in every run with a batch policy (hits, misses, sync ms)")
    .addOption(new Option("--profile <profile>", PROFILE_HELP).choices(PROFILE_NAMES))
    .addOption(integerOption("--context-window <tokens>", "the model's context window", 1).default(200_000))
    .addOption(
      integerOption(
        "--max-output-tokens <tokens>",
        "tokens reserved for the answer (default: the profile's, ≤ window/4)",
        1,
      ),
    )
    .option("--main-only", "replay only the main sessions, not subagent threads")
    .option("--html <file>", "also write the comparison as a self-contained HTML report to <file>")
    .addOption(
      integerOption(
        "--fixed-prefix-tokens <tokens>",
        "system prompt and tool tokens before the transcript, where its usage does not tell",
        0,
      ),
    )
    .addOption(
      new Option(
        "--cache-ttl <ttl>",
        "cache entry lifetime where the usage does not tell (the profile's names)",
      ).choices(TTL_NAMES),
    )
    .addOption(
      new Option("--model <model>", "price the agent's requests as this model (default: the transcript's)").argParser(
        knownModel,
      ),
    )
    .addOption(
      new Option(
        "--summarizer-model <model>",
        "price the summarizer's calls as this model (default: the agent's)",
      ).argParser(knownModel),
    )
    .addOption(
      new Option(
        "--summary-breakpoint",
        "the agent's requests put a cache breakpoint on the last summary too (toAnthropicRequest's cache option; anthropic)",
      ),
    )
    .addOption(
      new Option(
        "--summarizer-reads-conversation",
        "the summarizer reads each span inside the agent's own request, from the prompt cache (not with --summarizer-model)",
      ).conflicts("summarizerModel"),
    )
    .addOption(
      new Option(
        "--lost-fact-usd <usd>",
        "what one fact a summary drops is worth to cost-optimal (default: no trade, no more lost than summary)",
      ).argParser(dollars),
    )
    .addOption(progressOption())
    .action(async (file: string, opts: ReplayFlags, command: Command) => {
      const global = program.opts<GlobalOptions>();
      const backstopGiven = opts.compare !== undefined || command.getOptionValueSource("policy") !== "default";
      const names = opts.compare ?? parseRuns(opts.micro === true && !backstopGiven ? "none" : opts.policy);
      const policies = names.map((run) => (opts.micro === true ? withMicro(run) : run).name);
      const contextWindow = opts.contextWindow;
      const text = await readTranscriptFile(io, file);
      const parsed = parseTranscript(text, { fileName: basename(file) });
      const sessions = opts.mainOnly === true ? parsed.filter((s) => s.parentExternalId === undefined) : parsed;
      if (sessions.length === 0) throw new ValidationError(`${basename(file)}: no sessions to replay`, [file]);
      const profile = transcriptProfileChoice(sessions, opts);
      const cacheTtlSeconds = ttlSeconds(profile.name, opts.cacheTtl);
      const marked = opts.summaryBreakpoint === true ? withSummaryBreakpoint(profile.name) : undefined;
      const options = {
        ...definedFields({ profile: marked ?? opts.profile }),
        contextWindow,
        ...definedFields({
          maxOutputTokens: opts.maxOutputTokens,
          fixedPrefixTokens: opts.fixedPrefixTokens,
          cacheTtlSeconds,
          model: opts.model,
          summarizerModel: opts.summarizerModel,
          lostFactUsd: opts.lostFactUsd,
        }),
        ...(opts.precompact === true ? { precompact: true } : {}),
        ...(opts.summarizerReadsConversation === true ? { summarizerReadsConversation: true } : {}),
        ...(showsProgress(io, opts) ? { onProgress: progressLine(io) } : {}),
      };
      if (opts.html !== undefined) {
        // The report's cache rules come from the profile it is given: the inferred one, by name.
        const { replay, series } = await replayWithSeries(
          sessions,
          { ...options, profile: marked ?? profile.name },
          policies,
        );
        const written = await writeReport(resolve(io.cwd, opts.html), replayReportData(basename(file), replay, series));
        return emit(io, global, written, (w) => `${render(replay)}\n\n${writtenLine(w)}`);
      }
      const replay = await replayTranscript(sessions, { ...options, policies });
      const rows = replay.policies.map((p) => ({
        ...p,
        usageComparison: replay.usageComparison,
        cacheModel: replay.cacheModel,
        models: replay.models,
        profileChoice: replay.profile,
      }));
      emit(io, global, rows, () => render(replay));
    });
}

/** commander's parser for a model the price table knows; a usage error listing the known ones otherwise. */
function knownModel(name: string): string {
  if (modelPrices(name) === undefined) {
    throw new InvalidArgumentError(`unknown model ${name}; known: ${KNOWN_MODELS.join(", ")}.`);
  }
  return name;
}

/** The seconds of a `--cache-ttl` name under the profile; a usage error when the profile does not offer it. */
function ttlSeconds(profileName: string, ttl: string | undefined): number | undefined {
  if (ttl === undefined) return undefined;
  const choices = PROVIDER_PROFILES[profileName]?.cache.ttlChoices ?? {};
  const seconds = choices[ttl];
  if (seconds === undefined) {
    const offered = Object.keys(choices);
    throw new ValidationError(
      `--cache-ttl ${ttl} is not a lifetime of the ${profileName} profile (${offered.length === 0 ? "it caches nothing" : offered.join(", ")})`,
      ["--cache-ttl"],
    );
  }
  return seconds;
}

/**
 * The built-in profile with a breakpoint on the last summary too (`--summary-breakpoint`); a usage error
 * for a profile whose cache takes no breakpoints.
 */
function withSummaryBreakpoint(profileName: string) {
  if (PROVIDER_PROFILES[profileName]?.cache.kind !== "explicit-breakpoint")
    throw new ValidationError(
      `--summary-breakpoint: the ${profileName} profile's cache takes no breakpoints (anthropic's does)`,
      ["--summary-breakpoint"],
    );
  return customProfile({ name: profileName, cache: { summaryBreakpoint: true } }, profileName);
}

/** The runs of a comma-separated list (`--compare`, `--policy`); a usage error naming the unknown ones. */
function parseRuns(list: string): ReplayRun[] {
  const names = list.split(",").map((s) => s.trim());
  const unknown = names.filter((n) => replayRun(n) === undefined);
  if (unknown.length > 0) {
    throw new InvalidArgumentError(`unknown policy ${unknown.join(", ")}; runs: ${REPLAY_RUN_NAMES.join(", ")}.`);
  }
  return names.map((n) => replayRun(n) as ReplayRun);
}

/** Progress on stderr every 10% of a session of 100+ requests (on a terminal, or with `--progress`: showsProgress). */
function progressLine(
  io: CliIo,
): (p: { policy: string; session: number; sessions: number; done: number; requests: number }) => void {
  let shown = "";
  return (p) => {
    if (p.requests < 100) return;
    const key = `${p.policy}:${p.session}:${Math.floor((p.done / p.requests) * 10)}`;
    if (key === shown) return;
    shown = key;
    io.stderr(`replay ${p.policy} session ${p.session}/${p.sessions}: ${p.done}/${p.requests} requests\n`);
  };
}

function render(replay: TranscriptReplay): string {
  const { header, rows } = replayMetricsTable(replay.policies);
  const first = replay.policies[0];
  const fidelity = fidelityTable(replay.policies.map((p) => ({ label: p.policy, fidelity: p.fidelity })));
  const lines = [
    first === undefined
      ? ""
      : `profile: ${replay.profile === undefined ? first.profile : describeProfileChoice(replay.profile)}, context window ${first.contextWindow}`,
    table(header, rows),
    ...(first === undefined ? [] : [floorLine(first.floorCost)]),
    "",
    "fidelity (docs/fidelity.md): mean recall per request, and what compactions kept of what they removed",
    table(fidelity.header, fidelity.rows),
    ...replay.policies.filter((p) => p.compactions.length > 0).map(changedIndexes),
    ...replay.policies.filter((p) => p.precompact).map(precompactLine),
  ];
  lines.push("", ...cacheModelLines(replay));
  if (replay.usageComparison !== null) lines.push("", usageLines(replay.usageComparison, first?.profile ?? ""));
  return lines.join("\n");
}

/** The cost floor under the table: the same for every policy (PolicyReplay.floorCost). */
function floorLine(floorCost: number): string {
  return `cost floor USD ${floorCost.toFixed(2)}: no policy that sends every message once whole goes below it (each request reads the fixed prefix and writes only its new messages, plus its output)`;
}

function changedIndexes(p: PolicyReplay): string {
  const shown = p.earliestChangedIndex.slice(0, 20).join(", ");
  const more = p.earliestChangedIndex.length > 20 ? `, … (${p.earliestChangedIndex.length - 20} more)` : "";
  return `${p.policy} (threshold ${p.threshold}): earliest changed index per compaction: ${shown}${more}`;
}

/** One line per pre-compaction run: hits, misses by reason, sync ms with and without a hit, saved, wasted, age. */
function precompactLine(p: PolicyReplay): string {
  const misses = Object.entries(p.precompactMisses)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  const sync = (hit: boolean): string => {
    const ms = p.syncCompactionMs.filter((s) => s.hit === hit).map((s) => s.ms);
    if (ms.length === 0) return "-";
    return `mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1)} ms over ${ms.length}`;
  };
  const age =
    p.candidateAgeMs === null
      ? "-"
      : `mean ${p.candidateAgeMs.mean.toFixed(0)} / max ${p.candidateAgeMs.max.toFixed(0)} ms`;
  return [
    `${p.policy} precompact: ${p.precompactHits} hits, misses ${misses || "none"};`,
    `sync compaction hit ${sync(true)}, miss ${sync(false)};`,
    `saved ${p.precompactSavedMs.toFixed(1)} ms, wasted ${p.precompactWastedMs.toFixed(1)} ms, candidate age ${age}`,
  ].join(" ");
}

function usageLines(usage: NonNullable<TranscriptReplay["usageComparison"]>, profile: string): string {
  const line = (name: string, f: FieldComparison): string =>
    `  ${name.padEnd(11)} estimated ${f.estimatedTotal}  real ${f.realTotal}  ratio ${f.ratio === null ? "-" : f.ratio.toFixed(2)}  mean abs error/turn ${f.meanAbsoluteError.toFixed(0)}`;
  return [
    `cache model (${profile} rules) vs provider usage, ${usage.turns} requests before the source's own compaction (no compaction):`,
    line("cache read", usage.cacheRead),
    line("cache write", usage.cacheWrite),
    line("input", usage.input),
    ...(usage.cost === null
      ? []
      : [
          `  ${"cost USD".padEnd(11)} estimated ${usage.cost.estimatedTotal.toFixed(2)}  real ${usage.cost.realTotal.toFixed(2)}  ratio ${usage.cost.ratio === null ? "-" : usage.cost.ratio.toFixed(2)}  (output included, at each request's model prices)`,
        ]),
  ].join("\n");
}

/** What the cache model was calibrated to, per session, and the models that priced the run. */
function cacheModelLines(replay: TranscriptReplay): string[] {
  const { agent, summarizer } = replay.models;
  const lines = [
    `prices: agent ${agent ?? "each request's model from the transcript (else the profile's)"}, summarizer ${summarizer ?? "the profile's"}`,
    ...replay.cacheModel.map(sessionCacheLine),
  ];
  if (replay.cacheModel.some((s) => !s.timed)) lines.push("no timestamps in the transcript: no cache entry expires");
  return lines;
}

function sessionCacheLine(s: SessionCacheSummary): string {
  const scale =
    s.tokenScaleSource === "usage"
      ? `tokens ×${s.tokenScale.toFixed(3)} (fitted on ${s.calibrationRequests} requests)`
      : "tokens ×1 (no usage to fit)";
  const prefix =
    s.fixedPrefixSource === "none"
      ? "no fixed prefix"
      : `fixed prefix ${s.fixedPrefixTokens} (${s.fixedPrefixSource}${s.warmPrefixTokens > 0 ? `, ${s.warmPrefixTokens} already cached` : ""})`;
  const ttl = s.ttlSeconds >= 3600 ? `${s.ttlSeconds / 3600} h` : `${s.ttlSeconds / 60} min`;
  const resets =
    s.prefixResets === 0
      ? ""
      : `, prefix changed before ${s.prefixResets} request${s.prefixResets === 1 ? "" : "s"} (usage)`;
  return `cache model ${s.externalId}: ${scale}, ${prefix}${resets}, TTL ${ttl} (${s.ttlSource}), window ${s.budgetWindow} of our tokens${s.timed ? "" : ", untimed"}`;
}
