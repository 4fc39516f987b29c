import type { SessionCommand } from "@palimpsest/core";
import type { Session } from "@palimpsest/runtime";

/** Runs a decider command through a real runtime session (messages are re-counted by its tokenizer). */
export async function runCommand(session: Session, command: SessionCommand): Promise<void> {
  switch (command.type) {
    case "start":
      return;
    case "append-messages":
      await session.append(
        command.messages.map((m) => m.message),
        command.turnId === undefined ? {} : { turnId: command.turnId },
      );
      return;
    case "complete-turn":
      await session.completeTurn(command.turnId, command.usage);
      return;
    case "supersede":
      await session.supersede(command.data);
      return;
    case "record-compaction-failure":
      await session.recordCompactionFailure(command.data);
      return;
    case "hand-off":
      await session.markHandedOff(command.toSessionId, command.reason);
      return;
  }
}
