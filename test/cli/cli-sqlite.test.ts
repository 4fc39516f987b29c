import { defineCoreFlows } from "./core-flows.ts";
import { sqliteCliDatabase } from "./harness.ts";

defineCoreFlows("SQLite file", sqliteCliDatabase);
