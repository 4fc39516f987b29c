import { sqliteBackend } from "../support/store-backends.ts";
import { describeEventStoreContract } from "./event-store-contract.ts";

describeEventStoreContract("SQLite (temporary file)", sqliteBackend);
