import { describeSessionStoreContract } from "./session-store.contract.ts";
import { postgresSessionStores } from "./session-store-backends.ts";

describeSessionStoreContract(postgresSessionStores());
