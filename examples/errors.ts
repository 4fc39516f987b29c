/** Errors are data: a stable `code` and typed `details`; a retried keyed append appends nothing twice. */
import { isPalimpsestError, openPalimpsest } from "palimpsest";

const palimpsest = await openPalimpsest({ url: ":memory:" });
const session = await palimpsest.startSession({ model: "gpt-4o" });

// Retry an append with the same idempotencyKey and the same messages: the original events come back.
const question = { role: "user", content: "Run the tests" } as const;
const first = await session.append(question, { idempotencyKey: "turn-1/user" });
const retry = await session.append(question, { idempotencyKey: "turn-1/user" });
console.log(`retry returned the original: ${retry[0]?.eventId === first[0]?.eventId}`);

try {
  await session.append({ role: "user", content: "Something else" }, { idempotencyKey: "turn-1/user" });
} catch (error) {
  if (isPalimpsestError(error, "IDEMPOTENCY_MISMATCH")) console.log(error.code); // same key, other messages
}

try {
  await session.append({ role: "tool", toolCallId: "nope", content: "orphan output" });
} catch (error) {
  if (isPalimpsestError(error, "INVARIANT_VIOLATED")) console.log(error.code, error.details.rule);
}
console.log(`${session.view().messages.length} live message(s): nothing stored by a rejected write`);
await palimpsest.close();
