import { describeSessionStoreContract } from "./session-store.contract.ts";
import { sqliteSessionStores } from "./session-store-backends.ts";

describeSessionStoreContract(sqliteSessionStores);
