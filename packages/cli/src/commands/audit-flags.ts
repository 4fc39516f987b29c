import { definedFields, ValidationError } from "@palimpsest/core";
import type { AsOf } from "@palimpsest/projections";
import type { CompactionFilter, FailureFilter } from "@palimpsest/store";
import { type Command, Option } from "commander";
import { integerOption } from "../flags.ts";
import { type SessionLookup, sessionIdByPrefix } from "../id-prefix.ts";

/** The filter flags of the audit commands, as commander parses them. */
export interface FilterFlags {
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

/** Adds --session, --since and --until. */
export function withTimeFilters(command: Command): Command {
  return command
    .option("--session <session>", "only this session (id or prefix)")
    .option("--since <iso>", "at or after this time")
    .option("--until <iso>", "before this time");
}

/** Adds the time filters and --mode, --policy, --profile, --model, --prompt-version, --trigger. */
export function withCompactionFilters(command: Command): Command {
  return withTimeFilters(command)
    .option("--mode <mode>", "summary, prune, micro, defrag, trim, retract, precompact or import")
    .option("--policy <policy>", "the policy that produced it")
    .option("--profile <profile>", "the provider profile it ran under")
    .option("--model <model>", "the summarizer model")
    .option("--prompt-version <version>", "the summarizer prompt version")
    .option("--trigger <trigger>", "manual, auto, import or background");
}

/** The compaction filter the flags ask for (a session prefix resolved to its id). */
export async function compactionFilter(store: SessionLookup, flags: FilterFlags): Promise<CompactionFilter> {
  const { model, promptVersion, ...rest } = flags;
  return {
    ...(await timeFilter(store, rest)),
    ...definedFields({ mode: flags.mode, policy: flags.policy, profile: flags.profile, trigger: flags.trigger }),
    ...definedFields({ summarizerModel: model, promptVersion }),
  };
}

/** The failure filter the flags ask for. */
export async function failureFilter(store: SessionLookup, flags: FilterFlags): Promise<FailureFilter> {
  return { ...(await timeFilter(store, flags)), ...definedFields({ mode: flags.mode, reason: flags.reason }) };
}

async function timeFilter(store: SessionLookup, flags: FilterFlags) {
  const sessionId = await optionalSession(store, flags.session);
  return definedFields({ sessionId, since: flags.since, until: flags.until });
}

/** A session flag resolved to a full id (undefined when absent). */
export async function optionalSession(store: SessionLookup, id: string | undefined): Promise<string | undefined> {
  return id === undefined ? undefined : sessionIdByPrefix(store, id);
}

/** The flags of one point in time: --seq, --time and --turn, which exclude each other. */
export interface AsOfFlags {
  seq?: number;
  time?: string;
  turn?: number;
}

/** Adds --seq, --time and --turn (at most one; commander refuses two). */
export function withAsOf(command: Command): Command {
  return command
    .addOption(integerOption("--seq <n>", "just after this event of the session", 0).conflicts(["time", "turn"]))
    .addOption(new Option("--time <iso>", "at this time (the last event at or before it)").conflicts("turn"))
    .addOption(integerOption("--turn <n>", "at the end of the n-th completed turn (1 = first)", 1));
}

/** The point in time the flags name (exactly one of them). */
export function asOf(flags: AsOfFlags): AsOf {
  if (flags.seq !== undefined) return { seq: flags.seq };
  if (flags.turn !== undefined) return { turn: flags.turn };
  if (flags.time !== undefined) return { time: flags.time };
  throw new ValidationError("give one of --seq, --time or --turn", ["point in time: --seq, --time or --turn"]);
}
