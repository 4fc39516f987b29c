export { errorNames } from "./error-names.ts";
export {
  type ContentPart,
  type ImagePart,
  isEmptyMessage,
  type Message,
  MessageSchema,
  MetadataSchema,
  messageText,
  type Role,
  type ToolCall,
} from "./message.ts";
export { messageIdIssue } from "./message-id-limits.ts";
export { parseMessage } from "./parse-message.ts";
export { argumentPaths, commandLine, isFileRead, shellCommand, toolArguments, toolKind } from "./tool-call-kinds.ts";
export { isFileContent, isFileListing } from "./tool-output.ts";
export { isHarnessText, isUserRequest, requestText } from "./user-requests.ts";
