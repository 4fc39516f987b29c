import { DEFAULT_SUMMARY_CAPS, type Message, redactSecrets, serializeForSummary } from "@palimpsest/core";
import { REDACTED } from "@palimpsest/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** [input, the secret part that must disappear, a part that must survive]. */
const CASES: readonly [string, string, string][] = [
  ["export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234", "abcdefghijklmnop1234", "OPENAI_API_KEY="],
  ["key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv_wx-yz", "AbCdEfGhIjKlMnOpQrStUv", "key "],
  ["aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE", "aws "],
  ["token ghp_abcdefghijklmnopqrstuvwxyz123456", "abcdefghijklmnopqrstuvwxyz123456", "token "],
  ["github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "11ABCDEFG0123456789", ""],
  ["slack xoxb-1234567890-abcdefghij", "1234567890-abcdefghij", "slack "],
  ["slack xoxp-1234567890-abcdefghij", "1234567890-abcdefghij", "slack "],
  ['{"apiKey": "hunter2-secret", "model": "gpt"}', "hunter2-secret", '"model": "gpt"'],
  ['{\\"api_key\\": \\"hunter2-secret\\"}', "hunter2-secret", '{\\"api_key\\": \\"'],
  ["api_key=abc123def&model=x", "abc123def", "&model=x"],
  ["password: correct-horse-battery", "correct-horse-battery", "password: "],
  ["DB_PASSWORD='pa ss word'", "pa ss word", "DB_PASSWORD="],
  ["Authorization: Bearer abcdef123456789xyz", "abcdef123456789xyz", "Authorization: Bearer "],
  ["postgres://admin:s3cr3t@db.example.com:5432/app", "s3cr3t", "postgres://admin:***@db.example.com"],
  ["https://u:p%40ss@h.io/x", "p%40ss", "https://u:***@h.io/x"],
  ["https://api.x.io/v1?token=zzz123abc&page=2", "zzz123abc", "&page=2"],
  ["https://api.x.io/v1?x=1&key=zzz123abc", "zzz123abc", "?x=1&key="],
  ["mytool --password hunter22 --verbose", "hunter22", "--verbose"],
  [
    "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "dozjgNryP4J3",
    "jwt ",
  ],
  ["-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA", ""],
];

describe("redactSecrets", () => {
  it.each(CASES)("redacts %s", (input, secret, kept) => {
    const out = redactSecrets(input);
    expect(out).not.toContain(secret);
    expect(out).toContain(kept);
    expect(redactSecrets(out)).toBe(out);
  });

  it("leaves ordinary text and token counts alone", () => {
    const text = "max_tokens=100 maxOutputTokens: 4000 token_count=5 see src/task-runner.ts and https://example.com/a";
    expect(redactSecrets(text)).toBe(text);
  });
});

const alnum = fc.string({
  unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
  minLength: 20,
  maxLength: 40,
});
const upper = fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), minLength: 16, maxLength: 16 });
/** A secret in one of the supported shapes, with the random part that must never survive. */
const secret: fc.Arbitrary<{ text: string; body: string }> = fc.oneof(
  alnum.map((b) => ({ text: `sk-${b}`, body: b })),
  alnum.map((b) => ({ text: `sk-ant-api03-${b}`, body: b })),
  upper.map((b) => ({ text: `AKIA${b}`, body: `AKIA${b}` })),
  alnum.map((b) => ({ text: `ghp_${b}`, body: b })),
  alnum.map((b) => ({ text: `github_pat_${b}`, body: b })),
  alnum.map((b) => ({ text: `xoxb-${b}`, body: b })),
  alnum.map((b) => ({ text: `Authorization: Bearer ${b}`, body: b })),
  alnum.map((b) => ({ text: `https://user:${b}@host.example/x`, body: b })),
  alnum.map((b) => ({ text: `https://host.example/x?token=${b}`, body: b })),
  alnum.map((b) => ({ text: `api_key=${b}`, body: b })),
  alnum.map((b) => ({ text: `"apiKey": "${b}"`, body: b })),
  alnum.map((b) => ({ text: `password=${b}`, body: b })),
);

describe("serializeForSummary", () => {
  it("never lets an embedded secret through, whatever surrounds it and whatever the caps cut", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3000 }),
        secret,
        fc.string({ maxLength: 3000 }),
        fc.constantFrom("user", "assistant", "tool", "args") as fc.Arbitrary<string>,
        (before, s, after, where) => {
          const text = `${before} ${s.text} ${after}`;
          const message: Message =
            where === "tool"
              ? { id: "t", role: "tool", toolCallId: "c", content: [{ type: "text", text }] }
              : where === "args"
                ? { id: "a", role: "assistant", content: [], toolCalls: [{ id: "c", name: "bash", arguments: text }] }
                : { id: "m", role: where === "user" ? "user" : "assistant", content: [{ type: "text", text }] };
          const out = JSON.stringify(serializeForSummary([message], DEFAULT_SUMMARY_CAPS));
          expect(out).not.toContain(s.body);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps JSON arguments JSON within the cap, a secret an escape hid redacted, and changes nothing applied again", () => {
    const call = (args: unknown): Message => ({
      id: "a",
      role: "assistant",
      content: [],
      toolCalls: [{ id: "c", name: "bash", arguments: typeof args === "string" ? args : JSON.stringify(args) }],
    });
    const argsOf = (message: Message) => serializeForSummary([message])[0]?.toolCalls?.[0]?.arguments ?? "";
    const long = (c: string, n: number) => c.repeat(n);
    const inputs: [string, Message][] = [
      // An escaped slash JSON.stringify writes plainly: the redaction must see the URL's password.
      ["escaped", call(`{"command":"curl https:\\/\\/admin:hunter2@db.internal\\/x","pad":"${long("p", 3000)}"}`)],
      ["nine long strings", call(Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}`, long("x", 1000)])))],
      ["nested", call({ file_path: "/a.py", edits: [{ old_string: long("o", 3000), new_string: long("n", 3000) }] })],
      ["deeper", call({ input: { command: `python -c "${long("c", 5000)}"` } })],
      ["a quote after a secret", call({ command: `PGPASSWORD=s3cr3t"x psql -h db ${long("q", 3000)}` })],
    ];
    for (const [name, message] of inputs) {
      const args = argsOf(message);
      expect(args.length, name).toBeLessThanOrEqual(DEFAULT_SUMMARY_CAPS.toolArgumentChars);
      expect(() => JSON.parse(args), name).not.toThrow();
      expect(args, name).not.toContain("hunter2");
      expect(args, name).not.toContain("s3cr3t");
      expect(serializeForSummary(serializeForSummary([message])), name).toEqual(serializeForSummary([message]));
    }
    expect(JSON.parse(argsOf(inputs[3]?.[1] as Message))).toMatchObject({
      input: { command: expect.stringMatching(/^python -c "c/) },
    });
  });

  it("is safe to apply again when it cuts arguments as text, wherever the cut falls near a secret", () => {
    // Strings too short to cut one by one: the JSON is cut as text, at every offset around an assignment.
    for (let shift = 0; shift < 160; shift++) {
      const fields: Record<string, string> = { pad: "p".repeat(shift) };
      for (let i = 0; i < 9; i++) fields[`a${i}`] = "x".repeat(90);
      fields.env = "PGPASSWORD=s3cr3t-value and more text after it";
      for (let i = 0; i < 16; i++) fields[`b${i}`] = "y".repeat(90);
      const message: Message = {
        id: "a",
        role: "assistant",
        content: [],
        toolCalls: [{ id: "c", name: "bash", arguments: JSON.stringify(fields) }],
      };
      const once = serializeForSummary([message]);
      expect(once[0]?.toolCalls?.[0]?.arguments.length).toBeLessThanOrEqual(DEFAULT_SUMMARY_CAPS.toolArgumentChars);
      expect(JSON.stringify(once)).not.toContain("s3cr3t");
      expect(serializeForSummary(once), `shift ${shift}`).toEqual(once);
    }
  });

  it("is safe to apply again when it cuts a string value, wherever the cut falls near a secret", () => {
    for (let shift = 900; shift < 1000; shift++) {
      const command = `${"z".repeat(shift)} PGPASSWORD=abcdef ${"y".repeat(3000)}`;
      const message: Message = {
        id: "a",
        role: "assistant",
        content: [],
        toolCalls: [{ id: "c", name: "bash", arguments: JSON.stringify({ command }) }],
      };
      const once = serializeForSummary([message]);
      const args = once[0]?.toolCalls?.[0]?.arguments ?? "";
      expect(args.length).toBeLessThanOrEqual(DEFAULT_SUMMARY_CAPS.toolArgumentChars);
      expect(() => JSON.parse(args)).not.toThrow();
      expect(serializeForSummary(once), `shift ${shift}`).toEqual(once);
    }
  });

  it("caps long tool outputs head + tail and marks the cut", () => {
    const long = `HEAD${"x".repeat(10_000)}TAIL`;
    const [out] = serializeForSummary([
      { id: "t", role: "tool", toolCallId: "c", content: [{ type: "text", text: long }] },
    ]);
    const text = out?.content[0]?.type === "text" ? out.content[0].text : "";
    expect(text.length).toBeLessThanOrEqual(DEFAULT_SUMMARY_CAPS.toolOutputChars);
    expect(text.startsWith("HEAD")).toBe(true);
    expect(text.endsWith("TAIL")).toBe(true);
    expect(text).toContain("chars omitted");
  });

  it("lists a cut output's numbers when keeping room for them also cut an error name out", () => {
    // The full cut keeps the error name and omits the number; keeping room for the number's note also cuts
    // the name out, and the name's note (listed first) took that room: the number went unlisted.
    const long = `${"row ok\n".repeat(300)}median 41.5 ms\n${"row ok\n".repeat(300)}ValueError${"-".repeat(963)}`;
    const [out] = serializeForSummary([
      { id: "t", role: "tool", toolCallId: "c", content: [{ type: "text", text: long }] },
    ]);
    const text = out?.content[0]?.type === "text" ? out.content[0].text : "";
    expect(text.length).toBeLessThanOrEqual(DEFAULT_SUMMARY_CAPS.toolOutputChars);
    expect(text).toContain("[error names in the omitted part: ValueError]");
    expect(text).toContain("[measured numbers in the omitted part: 41.5ms]");
  });

  it("drops images, reasoning and metadata but keeps the tool pairing", () => {
    const [out] = serializeForSummary([
      {
        id: "t",
        role: "tool",
        toolCallId: "c",
        isError: true,
        reasoning: { secret: "sk-abcdefghijklmnopqrstuv" },
        metadata: { x: 1 },
        content: [{ type: "image", data: "AAAA" }],
      },
    ]);
    expect(out).toEqual({
      id: "t",
      role: "tool",
      toolCallId: "c",
      isError: true,
      content: [{ type: "text", text: "[1 image omitted]" }],
    });
    expect(REDACTED).toBe("[REDACTED]");
  });
});
