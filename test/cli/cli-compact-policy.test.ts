import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, jsonError, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const DEMO = "examples/demo-session.jsonl";

describe("palimpsest compact --policy (SQLite file)", () => {
  let db: CliDatabase;
  let server: Server;
  let baseUrl = "";
  let requests = 0;
  beforeAll(async () => {
    db = await sqliteCliDatabase();
    // A local endpoint that speaks OpenAI's chat completions and refuses the key.
    server = createServer((req, res) => {
      requests += 1;
      req.resume();
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "bad key", type: "invalid_request_error" } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.close();
    await db.dispose();
  });

  const cli = (...args: string[]) =>
    runPalimpsest(["--db", db.url, ...args], { env: { OPENAI_API_KEY: "sk-test-not-a-real-key" } });

  it("runs a policy now, records a failed provider summary without touching the view, and rejects bad flags", {
    timeout: 120_000,
  }, async () => {
    const imported = JSON.parse((await cli("--json", "import", DEMO)).stdout) as { sessionId: string }[];
    const id = imported[0]?.sessionId ?? "";
    const under = await cli("compact", id, "--policy", "summary");
    expect(under.code).toBe(0);
    expect(under.stdout).toContain("nothing to do");

    const viewBefore = (await cli("--json", "view", id)).stdout;
    const failed = await cli(
      "compact",
      id,
      "--policy",
      "summary",
      "--force",
      "--summarizer",
      "openai",
      "--summarizer-url",
      baseUrl,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("[SUMMARIZER]");
    expect(failed.stderr).toContain("(auth)");
    expect(requests).toBeGreaterThan(0);
    expect(JSON.parse((await cli("--json", "view", id)).stdout).messages).toEqual(JSON.parse(viewBefore).messages);

    const done = await cli("--json", "compact", id, "--policy", "summary", "--force", "--context-window", "16000");
    expect(done.code).toBe(0);
    const event = JSON.parse(done.stdout) as {
      type: string;
      data: { mode: string; producer: { summarizerModel: string } };
    };
    expect(event).toMatchObject({ type: "messages.superseded", data: { mode: "summary" } });
    expect(event.data.producer.summarizerModel).toBe("offline-extractive");
    const history = JSON.parse((await cli("--json", "history", id)).stdout) as unknown[];
    expect(history).toHaveLength(1);

    const bogus = await cli("--json", "compact", id, "--policy", "bogus");
    expect(bogus.code).toBe(2);
    expect(jsonError(bogus).code).toBe("VALIDATION");
    const half = await cli("--json", "compact", id, "--from", "x");
    expect(jsonError(half).code).toBe("VALIDATION");
    const profile = await cli("--json", "compact", id, "--profile", "nope", "--force");
    expect(jsonError(profile).code).toBe("VALIDATION");
  });
});
