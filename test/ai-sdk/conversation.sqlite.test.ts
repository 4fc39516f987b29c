import { describeConversations } from "./conversation.contract.ts";
import { sqliteConversations } from "./conversation-backends.ts";

describeConversations(sqliteConversations);
