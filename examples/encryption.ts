/** Content encrypted under a key per session, destroyed by an erasure; `npx tsx examples/encryption.ts`. */
import { randomBytes } from "node:crypto";
import { isPalimpsestError, openLocalKeyring, openPalimpsest } from "palimpsest";

// The master key comes from your secret store (openssl rand -base64 32); a fresh one when it is not set.
const masterKey = Buffer.from(process.env.PALIMPSEST_MASTER_KEY ?? randomBytes(32).toString("base64"), "base64");
const keyring = await openLocalKeyring({ directory: "./palimpsest-keys", masterKey }); // not beside the database's backups
const palimpsest = await openPalimpsest({ url: "./encrypted.db", keyring });

const session = await palimpsest.startSession({ model: "gpt-4o" });
await session.append({ role: "user", content: "My card number is 4111 1111 1111 1111." }, { turnId: "t1" });
await palimpsest.close();

// Without the keyring the content cannot be read: the database holds it sealed.
const withoutKeys = await openPalimpsest({ url: "./encrypted.db" });
const refused = await withoutKeys.resume(session.id).catch((error) => (isPalimpsestError(error) ? error.code : error));
console.log(`without the keyring: ${refused}`);
await withoutKeys.close();

// With it, the session reads as written; an erasure destroys its key, so no copy (WAL, replica, backup) can be read again.
const reopened = await openPalimpsest({ url: "./encrypted.db", keyring });
const text = JSON.stringify((await reopened.resume(session.id)).view().messages);
console.log(`with the keyring: ${text.includes("4111") ? "read back" : "missing"}`);
await reopened.erase(session.id, { reason: "user request" });
const kept = await keyring.dataKey({ tenant: "default", sessionId: session.id }, false);
console.log(`after the erasure, its key is ${kept === undefined ? "gone" : "still kept"}`);
await reopened.close();
