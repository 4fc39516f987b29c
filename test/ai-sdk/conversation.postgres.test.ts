import { describeConversations } from "./conversation.contract.ts";
import { postgresConversations } from "./conversation-backends.ts";

describeConversations(postgresConversations());
