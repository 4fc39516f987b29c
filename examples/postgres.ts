/** The same runtime on PostgreSQL: `DATABASE_URL=postgres://user@host:5432/db npx tsx examples/postgres.ts`. */
import { openPalimpsest } from "palimpsest";

const url = process.env.DATABASE_URL;
if (url === undefined || url === "") {
  console.error("SKIPPED: set DATABASE_URL=postgres://… to run this example");
  process.exit(0);
}
const palimpsest = await openPalimpsest({ url }); // migrates on open, under an advisory lock
const session = await palimpsest.startSession({ model: "gpt-4o" });
await session.append({ role: "user", content: "hello from PostgreSQL" }, { turnId: "t1" });
const resumed = await palimpsest.resume(session.id);
console.log(`resumed ${resumed.view().messages.length} message(s) from PostgreSQL`);
await palimpsest.close();
