/**
 * The evidence behind the cached profiles' prune-first defaults: replays the four real Claude Code
 * sessions that reach a threshold under summary and prune-first, with the tuned defaults and with the
 * pre-tuning settings (runway ratio 0.15, Hermes' protected tool names only), and prints one markdown
 * table. Run: `npx tsx bench/policy-tuning.ts` (needs ../shared/transcripts; about a minute).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { customProfile, type ProviderProfile, parseTranscript } from "@palimpsest/core";
import { ANTHROPIC_PROFILE, DEFAULT_RUNWAY_RULE, OPENAI_PROFILE } from "@palimpsest/core/testing";
import { replayTranscript } from "@palimpsest/eval";
import type { PolicyName } from "@palimpsest/runtime";
import { defaultPolicyName } from "@palimpsest/runtime/testing";

const SPOTTER = join(import.meta.dirname, "../../shared/transcripts/claude-code/spotter");
const SESSIONS = ["258c7280", "4d5611e5", "8463c716", "ae4a77f8"];
const HERMES_TOOLS = ["read_file", "memory", "clarify", "skill_view", "todo"];

/** The pre-tuning variant of a profile: the design's 0.15 runway ratio and Hermes' tool names only. */
function untuned(profile: ProviderProfile): ProviderProfile {
  return customProfile({ name: profile.name, runway: DEFAULT_RUNWAY_RULE, protectedTools: HERMES_TOOLS }, profile);
}

/** The tuned runway alone, with Hermes' tool names only (Claude Code's file reads prunable). */
function runwayOnly(profile: ProviderProfile): ProviderProfile {
  return customProfile({ name: profile.name, protectedTools: HERMES_TOOLS }, profile);
}

/** The baseline each profile's default policy is measured against. */
const BASELINE = "summary" satisfies PolicyName;

async function row(label: string, profile: ProviderProfile, window: number): Promise<string> {
  let summary = 0;
  let prune = 0;
  let summaryEvents = 0;
  let pruneEvents = 0;
  let met = 0;
  for (const id of SESSIONS) {
    const name = readdirSync(SPOTTER).find((f) => f.startsWith(id) && f.endsWith(".jsonl")) ?? `${id}.jsonl`;
    const sessions = parseTranscript(readFileSync(join(SPOTTER, name), "utf8"), { fileName: name }).filter(
      (s) => s.parentExternalId === undefined,
    );
    const [s, p] = (
      await replayTranscript(sessions, {
        policies: [BASELINE, defaultPolicyName(profile)],
        profile,
        contextWindow: window,
      })
    ).policies;
    if (s === undefined || p === undefined) continue;
    summary += s.estimatedCost;
    prune += p.estimatedCost;
    summaryEvents += s.compressionEvents;
    pruneEvents += p.compressionEvents;
    if (p.estimatedCost <= s.estimatedCost + 1e-9 && p.compressionEvents <= s.compressionEvents) met += 1;
  }
  return `| ${profile.name} | ${window / 1000}K | ${label} | $${summary.toFixed(2)} | ${summaryEvents} | $${prune.toFixed(2)} | ${pruneEvents} | ${met}/${SESSIONS.length} |`;
}

if (!existsSync(SPOTTER)) {
  console.error(`${SPOTTER} is absent: nothing to replay`);
  process.exit(1);
}
console.log(
  "| profile | window | settings | summary cost | summary events | prune-first cost | prune-first events | goal met |",
);
console.log("| --- | --- | --- | --: | --: | --: | --: | --: |");
for (const profile of [ANTHROPIC_PROFILE, OPENAI_PROFILE]) {
  for (const window of [200_000, 64_000]) {
    console.log(await row("before tuning", untuned(profile), window));
    console.log(await row("tuned runway only", runwayOnly(profile), window));
    console.log(await row("defaults", profile, window));
  }
}
