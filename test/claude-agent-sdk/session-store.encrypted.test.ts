import { describeSessionStoreContract } from "./session-store.contract.ts";
import { postgresSessionStores, sqliteSessionStores } from "./session-store-backends.ts";

// The whole contract again with the stores opened under a keyring: the mirror's entries and summaries
// are sealed and opened on every read, so every promise above must hold unchanged.
describeSessionStoreContract(sqliteSessionStores, true);
describeSessionStoreContract(postgresSessionStores(), true);
