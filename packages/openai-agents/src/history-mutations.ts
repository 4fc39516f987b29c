import type { AgentInputItem } from "@openai/agents-core";
import { type SessionState, ValidationError } from "@palimpsest/core";
import { loose, sameItems } from "./agent-item.ts";
import { viewItems } from "./history-plan.ts";

/** `replace_function_call` as 0.20 defines it, with the optional `expected` item of the SDK's main branch. */
export interface FunctionCallMutation {
  type: string;
  callId: string;
  replacement: AgentInputItem;
  expected?: AgentInputItem;
}

/** The view's items after mutations (`undefined` where an item is dropped), by the live message each came from. */
export interface MutatedItems {
  items: (AgentInputItem | undefined)[];
  owners: number[];
  /** The first and last live message (indexes) whose items changed. */
  from: number;
  to: number;
}

/**
 * Applies mutations to the view's items: without `expected`, the first `function_call` with the call id
 * becomes the replacement and later ones are dropped (nothing when there is none); with it, only the
 * latest call equal to `expected` is replaced, and VALIDATION when there is none. Undefined when nothing changed.
 */
export function mutateItems(
  state: Readonly<SessionState>,
  mutations: readonly FunctionCallMutation[],
): MutatedItems | undefined {
  const view = viewItems(state);
  const items: (AgentInputItem | undefined)[] = [...view.items];
  const changed: number[] = [];
  mutations.forEach((mutation, m) => {
    if (mutation.type !== "replace_function_call") {
      throw new ValidationError("unknown history mutation", [`mutations[${m}].type: ${String(mutation.type)}`], {
        path: `mutations[${m}].type`,
      });
    }
    const matches = items.flatMap((item, i) => {
      const fields = item === undefined ? undefined : loose(item);
      return fields?.type === "function_call" && fields.callId === mutation.callId ? [i] : [];
    });
    if (mutation.expected !== undefined) {
      const expected = mutation.expected;
      const at = matches.filter((i) => sameItems([items[i] as AgentInputItem], [expected])).at(-1);
      if (at === undefined) {
        throw new ValidationError(
          `no function_call ${mutation.callId} equal to the mutation's expected item`,
          [`mutations[${m}].expected: not in the history`],
          { path: `mutations[${m}].expected` },
        );
      }
      items[at] = mutation.replacement;
      changed.push(at);
      return;
    }
    matches.forEach((i, n) => {
      items[i] = n === 0 ? mutation.replacement : undefined;
      changed.push(i);
    });
  });
  if (changed.length === 0) return undefined;
  const at = changed.map((i) => view.owners[i] as number);
  return { items, owners: view.owners, from: Math.min(...at), to: Math.max(...at) };
}
