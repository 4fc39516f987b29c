import { definedFields, type Handoff, type HandoffClaim, type HandoffStatus } from "@palimpsest/core";
import { type Command, Option } from "commander";
import type { CliIo } from "../cli-io.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { handoffIdByPrefix, resumeByPrefix, withRuntime } from "../runtime.ts";

const STATUSES: readonly HandoffStatus[] = ["pending", "claimed", "completed", "failed"];
const DEFAULT_LEASE_MS = 60_000;

/** `--lease-ms`: a whole number of milliseconds, at least 1. */
function leaseOption(description: string): Option {
  return integerOption("--lease-ms <ms>", description, 1).default(DEFAULT_LEASE_MS);
}

function claimText(claim: HandoffClaim | null): string {
  if (claim === null) return "nothing to claim";
  return [
    `claimed hand-off ${claim.handoffId}: ${claim.sourceSessionId} → ${claim.successorSessionId} (attempt ${claim.attempts})`,
    `token ${claim.token}, lease until ${claim.leaseExpiresAt}`,
  ].join("\n");
}

function listText(list: Handoff[]): string {
  if (list.length === 0) return "no hand-offs";
  return table(
    ["hand-off", "status", "source", "successor", "target", "claimed by", "attempts"],
    list.map((h) => [
      h.handoffId,
      h.status,
      h.sourceSessionId,
      h.successorSessionId,
      h.target ?? "",
      h.claimedBy ?? "",
      h.attempts,
    ]),
  );
}

/**
 * `handoff request|claim|renew|complete|fail|list`: the claimable hand-off queue, so another process
 * or platform can take a session over (see docs/handoff.md).
 */
export function registerHandoff(program: Command, io: CliIo): void {
  const handoff = program.command("handoff").description("hand sessions over to other processes through a queue");

  handoff
    .command("request <session>")
    .description("queue a hand-off of a session (by id or unique prefix)")
    .option("--target <target>", "which platform or process kind should take it")
    .option("--reason <reason>", "why the session is handed off")
    .action(async (id: string, flags: { target?: string; reason?: string }) => {
      const global = program.opts<GlobalOptions>();
      const requested = await withRuntime(global, io, async (runtime) =>
        runtime.handoffs.request(await resumeByPrefix(runtime, id), {
          ...definedFields({ target: flags.target, reason: flags.reason }),
        }),
      );
      emit(
        io,
        global,
        requested,
        (h) => `requested hand-off ${h.handoffId}: ${h.sourceSessionId} → ${h.successorSessionId}`,
      );
    });

  handoff
    .command("claim")
    .description("claim the oldest pending (or lease-expired) hand-off; prints its token")
    .requiredOption("--claimant <name>", "who claims it (kept on the hand-off)")
    .addOption(leaseOption("how long the claim holds without renewal"))
    .option("--target <target>", "only hand-offs addressed to this target")
    .action(async (flags: { claimant: string; leaseMs: number; target?: string }) => {
      const global = program.opts<GlobalOptions>();
      const lease = flags.leaseMs;
      const claim = await withRuntime(global, io, (runtime) =>
        runtime.handoffs.claim({
          claimant: flags.claimant,
          leaseMs: lease,
          ...definedFields({ target: flags.target }),
        }),
      );
      emit(io, global, claim ?? null, claimText);
    });

  handoff
    .command("renew <handoff>")
    .description("extend a claim's lease")
    .requiredOption("--token <token>", "the token the claim printed")
    .addOption(leaseOption("the new lease, from now"))
    .action(async (handoffId: string, flags: { token: string; leaseMs: number }) => {
      const global = program.opts<GlobalOptions>();
      const lease = flags.leaseMs;
      const claim = await withRuntime(global, io, async (runtime) =>
        runtime.handoffs.renew({ handoffId: await handoffIdByPrefix(runtime, handoffId), token: flags.token }, lease),
      );
      emit(io, global, claim, claimText);
    });

  handoff
    .command("complete <handoff>")
    .description("finish a claimed hand-off: seal the source, start the successor from its sealed view (retry-safe)")
    .requiredOption("--token <token>", "the token the claim printed")
    .action(async (handoffId: string, flags: { token: string }) => {
      const global = program.opts<GlobalOptions>();
      const result = await withRuntime(global, io, async (runtime) => {
        const id = await handoffIdByPrefix(runtime, handoffId);
        const successor = await runtime.handoffs.complete({ handoffId: id, token: flags.token });
        return { handoff: await runtime.handoffs.get(id), successor: successor.resumeState() };
      });
      emit(
        io,
        global,
        result,
        (r) => `completed hand-off ${r.handoff.handoffId}: continue in session ${r.successor.sessionId}`,
      );
    });

  handoff
    .command("fail <handoff>")
    .description("give a claimed hand-off up, unless its completion began; the source session stays writable")
    .requiredOption("--token <token>", "the token the claim printed")
    .requiredOption("--reason <reason>", "why it failed")
    .action(async (handoffId: string, flags: { token: string; reason: string }) => {
      const global = program.opts<GlobalOptions>();
      const failed = await withRuntime(global, io, async (runtime) =>
        runtime.handoffs.fail(
          { handoffId: await handoffIdByPrefix(runtime, handoffId), token: flags.token },
          flags.reason,
        ),
      );
      emit(io, global, failed, (h) => `failed hand-off ${h.handoffId}: ${h.failureReason ?? ""}`);
    });

  handoff
    .command("list")
    .description("list hand-offs, oldest first")
    .addOption(new Option("--status <status>", "only hand-offs in this status").choices(STATUSES))
    .action(async (flags: { status?: HandoffStatus }) => {
      const global = program.opts<GlobalOptions>();
      const { status } = flags;
      const list = await withRuntime(global, io, (runtime) =>
        runtime.handoffs.list(status === undefined ? {} : { status }),
      );
      emit(io, global, list, listText);
    });
}
