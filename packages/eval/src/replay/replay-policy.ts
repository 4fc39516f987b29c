import { POLICY_NAMES, type PolicyName } from "@palimpsest/runtime";

/** A batch policy a replay can run: a runtime policy, or `none` (never compact: the baseline). */
export type ReplayPolicy = PolicyName | "none";

/** A compared run's name: a batch policy, `micro` alone, or `micro+<policy>` (micro passes with that backstop). */
export type ReplayRunName = ReplayPolicy | "micro" | `micro+${PolicyName}`;

/** Every run name `--compare` accepts, in the order they are listed: none, the policies, micro, micro with each. */
export const REPLAY_RUN_NAMES: readonly ReplayRunName[] = [
  "none",
  ...POLICY_NAMES,
  "micro",
  ...POLICY_NAMES.map((name) => `micro+${name}` as const),
];

/** What a run name means: the batch backstop (`none` for none) and whether micro passes run. */
export interface ReplayRun {
  name: ReplayRunName;
  policy: ReplayPolicy;
  micro: boolean;
}

/** Reads a run name; undefined when it is not one of REPLAY_RUN_NAMES. */
export function replayRun(name: string): ReplayRun | undefined {
  if (!(REPLAY_RUN_NAMES as readonly string[]).includes(name)) return undefined;
  const run = name as ReplayRunName;
  if (run === "micro") return { name: run, policy: "none", micro: true };
  if (run.startsWith("micro+")) return { name: run, policy: run.slice("micro+".length) as PolicyName, micro: true };
  return { name: run, policy: run as ReplayPolicy, micro: false };
}

/** The same run with micro passes on: `none` → `micro`, `summary` → `micro+summary`; micro runs unchanged. */
export function withMicro(run: ReplayRun): ReplayRun {
  if (run.micro) return run;
  return { name: run.policy === "none" ? "micro" : `micro+${run.policy}`, policy: run.policy, micro: true };
}
