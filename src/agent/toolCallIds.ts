import type { ChatMessage, ToolCall } from '../providers/provider';

/**
 * Gives every tool call of a turn an id no other call in the session uses (docs/providers.md).
 * Servers and our own fallbacks can repeat ids: two calls at different indexes with the same id,
 * a made-up `call_1` beside a server's `call_1`, or `call_1` again in every reply. Each call must
 * get exactly one result matched to it by id, so a repeated id is renamed `<id>_<n>` (the smallest
 * free `n` from 2) before the call is reported, run or stored; ids that are already unique stay
 * as the server sent them.
 */
export class ToolCallIds {
  private readonly taken = new Set<string>();

  /** `history`: the session so far, whose calls' ids stay reserved. */
  constructor(history: readonly ChatMessage[] = []) {
    for (const message of history) {
      for (const call of message.toolCalls ?? []) this.taken.add(call.id);
      if (message.toolCallId !== undefined) this.taken.add(message.toolCallId);
    }
  }

  /** The call itself when its id is free, else a copy with a fresh id; either way the id is now taken. */
  claim(call: ToolCall): ToolCall {
    if (!this.taken.has(call.id)) {
      this.taken.add(call.id);
      return call;
    }
    let n = 2;
    while (this.taken.has(`${call.id}_${n}`)) n++;
    const id = `${call.id}_${n}`;
    this.taken.add(id);
    return { ...call, id };
  }
}
