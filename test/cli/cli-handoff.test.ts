import { openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../runtime/handoff-fixtures.ts";
import { postgresServer } from "../support/postgres-server.ts";
import {
  type CliDatabase,
  jsonError,
  postgresCliDatabase,
  runPalimpsest,
  spawnPalimpsest,
  sqliteCliDatabase,
} from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest handoff (${name})`, () => {
    let db: CliDatabase;
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);
    /** A session with two exchanges, written through the library; returns its id. */
    const seed = async (): Promise<string> => {
      const runtime = await openPalimpsest({ url: db.url });
      const session = await runtime.startSession({ model: "gpt-4.1" });
      await session.append([...exchange(0), ...exchange(1)]);
      await runtime.close();
      return session.id;
    };
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
    });
    afterAll(() => db.dispose());

    it("requests, claims from two racing processes (one wins), completes; the successor carries the view", async () => {
      const source = await seed();
      const requested = await cli(
        "handoff",
        "request",
        source.slice(0, 24), // past the time bits a session made in the same ms shares
        "--target",
        "laptop",
        "--reason",
        "rotate",
      );
      expect(requested).toMatchObject({ code: 0, stderr: "" });
      const handoff = JSON.parse(requested.stdout) as { handoffId: string; successorSessionId: string; status: string };
      expect(handoff).toMatchObject({ status: "pending", target: "laptop", reason: "rotate" });

      // three processes: the race is between separate connections, as between machines
      const racing = await Promise.all(
        ["a", "b", "c"].map((c) =>
          spawnPalimpsest([
            "--db",
            db.url,
            "--json",
            "handoff",
            "claim",
            "--claimant",
            c,
            "--lease-ms",
            "60000",
            "--target",
            "laptop",
          ]),
        ),
      );
      expect(racing.map((r) => r.code)).toEqual([0, 0, 0]);
      const claims = racing.map((r) => JSON.parse(r.stdout) as { handoffId: string; token: string } | null);
      const won = claims.filter((c) => c !== null);
      expect(won).toHaveLength(1);
      const claim = won[0] as { handoffId: string; token: string };
      expect(claim.handoffId).toBe(handoff.handoffId);

      const wrong = await cli("handoff", "complete", claim.handoffId, "--token", "not-the-token");
      expect(wrong.code).toBe(1);
      expect(jsonError(wrong)).toMatchObject({ code: "CLAIM_LOST", details: { reason: "token-mismatch" } });
      // a token that never held the claim is not a claim that "no longer holds"
      expect(jsonError(wrong).message).toMatch(/^the token is not the one of hand-off \S+'s claim \(it never held it/);
      for (const args of [
        ["renew", claim.handoffId],
        ["fail", claim.handoffId, "--reason", "x"],
      ]) {
        const other = await runPalimpsest(["--db", db.url, "handoff", ...args, "--token", "not-the-token"]);
        expect(other.code, args.join(" ")).toBe(1);
        expect(other.stderr).toMatch(/^error \[CLAIM_LOST\] the token is not the one of hand-off/);
      }

      const done = await cli("handoff", "complete", claim.handoffId, "--token", claim.token);
      expect(done).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(done.stdout)).toMatchObject({
        handoff: { status: "completed", attempts: 1 },
        successor: { sessionId: handoff.successorSessionId, liveMessages: 8 },
      });
      const runtime = await openPalimpsest({ url: db.url });
      const [before, after] = [await runtime.resume(source), await runtime.resume(handoff.successorSessionId)];
      expect(after.view().messages).toEqual(before.view().messages);
      await runtime.close();

      const again = await cli("handoff", "request", source);
      expect(again.code).toBe(1);
      expect(jsonError(again)).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "session-handed-off" } });
    });

    it("fails a claimed hand-off, lists by status, and rejects bad flags with usage errors", {
      timeout: 180_000,
    }, async () => {
      const source = await seed();
      const { handoffId } = JSON.parse((await cli("handoff", "request", source, "--target", "gpu")).stdout) as {
        handoffId: string;
      };
      const claimed = await cli("handoff", "claim", "--claimant", "x", "--target", "gpu");
      const { token } = JSON.parse(claimed.stdout) as { token: string };
      // A unique prefix of a hand-off id names it, as with session ids.
      const prefix = handoffId.slice(0, 24);
      const renewed = await cli("handoff", "renew", prefix, "--token", token, "--lease-ms", "120000");
      expect(renewed).toMatchObject({ code: 0, stderr: "" });
      const failed = await cli("handoff", "fail", prefix, "--token", token, "--reason", "no GPU free");
      expect(failed).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(failed.stdout)).toMatchObject({ status: "failed", failureReason: "no GPU free" });

      const listed = await cli("handoff", "list", "--status", "failed");
      expect((JSON.parse(listed.stdout) as { handoffId: string }[]).map((h) => h.handoffId)).toContain(handoffId);
      const text = await runPalimpsest(["--db", db.url, "handoff", "list"]);
      expect(text.stdout).toContain(handoffId);
      expect(text.stdout).toContain("failed");

      const negative = await cli("handoff", "claim", "--claimant", "x", "--lease-ms", "-5");
      expect(negative.code).toBe(2);
      expect(jsonError(negative)).toMatchObject({ code: "VALIDATION" });
      const status = await cli("handoff", "list", "--status", "lost");
      expect(status.code).toBe(2);
      const unknown = await cli("handoff", "complete", "no-such-handoff", "--token", "t");
      expect(unknown.code).toBe(1);
      expect(jsonError(unknown)).toMatchObject({ code: "NOT_FOUND", details: { kind: "handoff" } });
      expect(JSON.parse((await cli("handoff", "claim", "--claimant", "x", "--target", "gpu")).stdout)).toBeNull();
    });
  });
}
