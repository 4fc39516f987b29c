import { messageText } from "@palimpsest/core";
import type { ViewAsOf } from "@palimpsest/projections";
import type {
  AuditedCompaction,
  CompactionTotals,
  FailureTotals,
  Lineage,
  LineageNode,
  LineageTree,
  MessageTrail,
  RebuildReport,
} from "@palimpsest/store";
import { preview, table } from "../output.ts";

/** `audit compactions` as a table. */
export function renderCompactions(list: AuditedCompaction[]): string {
  if (list.length === 0) return "no compactions match";
  return table(
    ["time", "session", "seq", "mode", "trigger", "policy", "summarizer", "targets", "reclaimed", "aux in / out"],
    list.map((c) => [
      c.occurredAt,
      c.sessionId.slice(0, 8),
      c.seq,
      c.mode,
      c.trigger,
      c.policy,
      [c.summarizerModel, c.promptVersion].filter((x) => x !== null).join(" ") || "-",
      c.targets,
      c.tokensReclaimed,
      c.auxTokensIn === null && c.auxTokensOut === null
        ? "-"
        : auxCell(c.auxTokensIn, c.auxTokensOut, c.auxTokensCacheRead, c.auxTokensIn),
    ]),
  );
}

/** `audit totals` as a table, one row per group. */
export function renderTotals(totals: CompactionTotals[]): string {
  if (totals.length === 0) return "no compactions match";
  const groups = Object.keys(totals[0]?.group ?? {});
  return table(
    [...groups, "compactions", "sessions", "targets", "tokens reclaimed", "aux in / out", "mean ms"],
    totals.map((t) => [
      ...groups.map((g) => t.group[g] ?? "-"),
      t.compactions,
      t.sessions,
      t.targets,
      t.tokensReclaimed,
      auxCell(t.auxTokensIn, t.auxTokensOut, t.auxTokensCacheRead, t.auxTokensInWithCacheRead),
      t.meanDurationMs ?? "-",
    ]),
  );
}

/**
 * The summarizer's tokens in and out (`-` for one not recorded), with the share of the input read from the
 * provider's prompt cache when it was recorded: `5000 (96% cached) / 60`. The share is `read` of `readOf`,
 * the input of the compactions that recorded the reads, which in a group can be less than `input`.
 */
function auxCell(input: number | null, output: number | null, read: number | null, readOf: number | null): string {
  const share =
    read === null || readOf === null || readOf === 0 ? "" : ` (${Math.round((100 * read) / readOf)}% cached)`;
  return `${input ?? "-"}${share} / ${output ?? "-"}`;
}

/** `audit failures` as a table, one row per group. */
export function renderFailures(totals: FailureTotals[]): string {
  if (totals.length === 0) return "no failed compaction attempts match";
  const groups = Object.keys(totals[0]?.group ?? {});
  return table(
    [...groups, "failures", "sessions"],
    totals.map((t) => [...groups.map((g) => t.group[g] ?? "-"), t.failures, t.sessions]),
  );
}

/** Message or compaction trails: what was taken out, and what was put in. */
export function renderTrails(trails: MessageTrail[], subject: string): string {
  if (trails.length === 0) return `${subject}: no compaction superseded or wrote it (live, or unknown)`;
  const lines: string[] = [];
  for (const t of trails) {
    lines.push(`session ${t.sessionId}`);
    if (t.supersededBy !== undefined) {
      const { compaction: c, replacements } = t.supersededBy;
      lines.push(
        `  superseded by ${c.mode} compaction ${c.compactionId} (seq ${c.seq}, ${c.occurredAt}, ${c.policy})`,
        `  replaced by: ${replacements.map((r) => `${r.messageId} (${r.kind})`).join(", ") || "nothing (dropped)"}`,
      );
    }
    if (t.writtenBy !== undefined) {
      const { compaction: c, targets } = t.writtenBy;
      lines.push(
        `  written by ${c.mode} compaction ${c.compactionId} (seq ${c.seq}, ${c.occurredAt}, ${c.policy})`,
        `  it replaced ${targets.length} messages: ${targets.join(", ")}`,
      );
    }
  }
  return lines.join("\n");
}

/** `audit lineage`: the ancestors, the session, its descendants as an indented tree, and the tip. */
export function renderLineage(l: Lineage): string {
  const line = (n: LineageNode, indent: number) =>
    `${"  ".repeat(indent)}${n.sessionId}${n.relation === null ? "" : ` (${n.relation}${n.parentAtSeq === null ? "" : ` at seq ${n.parentAtSeq}`})`}${n.model === null ? "" : ` ${n.model}`} started ${n.startedAt ?? "(not yet projected)"}`;
  return [
    ...[...l.ancestors].reverse().map((a) => `ancestor ${line(a, 0)}`),
    `session  ${line(l.session, 0)}`,
    ...l.descendants.map((d) => `         ${line(d, d.depth)}`),
    `tip of the hand-off chain: ${l.tip}${l.chain.length > 1 ? ` (${l.chain.join(" → ")})` : ""}`,
  ].join("\n");
}

/** `audit lineage` without a session: one row per lineage tree. */
export function renderLineageTrees(trees: LineageTree[]): string {
  if (trees.length === 0) return "no sessions";
  return table(
    ["root session", "started", "model", "sessions", "depth", "hand-off tip"],
    trees.map((t) => [t.rootSessionId, t.startedAt ?? "-", t.model ?? "-", t.sessions, t.depth, t.tip]),
  );
}

/** `audit view`: the view as it stood at a past point. */
export function renderViewAsOf(v: ViewAsOf): string {
  const { view } = v;
  return [
    `session ${view.sessionId} as of seq ${v.seq}${v.occurredAt === undefined ? "" : ` (${v.occurredAt})`}: ` +
      `${view.messages.length} live messages, ${view.tokens} tokens, view version ${view.viewVersion}`,
    ...view.messages.map((m, i) => `${String(i).padStart(4)} ${m.role.padEnd(9)} ${preview(messageText(m), 90)}`),
  ].join("\n");
}

/** `audit rebuild`: whether the rebuilt models equalled the live ones, and what differed. */
export function renderRebuild(r: RebuildReport): string {
  const verdict = r.equal
    ? "the rebuilt read models equal the live ones"
    : `${r.differenceCount} rows differ between the live read models and a rebuild from the log`;
  return [
    `${r.events} events read; ${verdict}${r.replaced ? "; the live models were replaced by the rebuild" : " (check only: nothing changed)"}`,
    table(
      ["table", "rows"],
      Object.entries(r.rows).map(([t, n]) => [t, n]),
    ),
    ...r.differences.map(
      (d) => `${d.table} ${d.key}: live ${JSON.stringify(d.live)} / rebuilt ${JSON.stringify(d.rebuilt)}`,
    ),
  ].join("\n");
}
