/** Anthropic prompt-cache breakpoints on the last summary, and the policy told of them; `npx tsx examples/anthropic-cache.ts`. */
import { checkAnthropicRequest, compactRange, customProfile, openPalimpsest, toAnthropicRequest } from "palimpsest";

const profile = customProfile({ name: "anthropic", cache: { summaryBreakpoint: true } }, "anthropic");
const palimpsest = await openPalimpsest({ compaction: { auto: true, policy: "cost-optimal", profile } });

const session = await palimpsest.startSession({ model: "claude-sonnet-4", contextWindow: 200_000 });
await session.append({ role: "system", content: "You are a careful coding agent." });
for (const step of ["one", "two", "three"]) {
  await session.append({ id: `u-${step}`, role: "user", content: `Do step ${step}.` });
  await session.append({ id: `a-${step}`, role: "assistant", content: `Step ${step} is done.` });
}
await compactRange(session, { fromId: "u-one", toId: "a-two", summary: "Steps one and two are done." });

// The breakpoints go on the system prompt, the last summary and the last two messages: four at most.
const view = session.view();
const request = toAnthropicRequest(view.messages, { cache: { summaryId: view.lastSummaryId } });
const marked = request.messages.flatMap((m) => m.content.filter((block) => block.cache_control !== undefined));
console.log(`system cached: ${Array.isArray(request.system)}; message breakpoints: ${marked.length}`);
console.log(`request problems: ${checkAnthropicRequest(request).length}`);
await palimpsest.close();
