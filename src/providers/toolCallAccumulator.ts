/**
 * The one place streamed tool-call fragments become whole tool calls.
 *
 * Servers disagree on how they stream `delta.tool_calls` (docs/providers.md): OpenAI
 * and llama.cpp send a head (id, name) then argument pieces per index; Ollama sends each
 * call whole, and a parallel batch may put every call at index 0; some resend the full name
 * with every piece; ids may be missing or integers. These rules cover all of them:
 * - key by index, but a different non-empty id at a used index opens a new call;
 * - assign the name (never append it), append the arguments;
 * - make up a stable id (`call_<n>`) when the server gave no usable one;
 * - if the stream ends without `finish_reason: "tool_calls"`, keep only calls whose
 *   arguments are JSON (or empty): anything else is a fragment of a call that never finished.
 */
import type { ToolCall } from './provider';

/** One item of `delta.tool_calls` as it comes off the wire (every field may be missing). */
export interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

interface Slot {
  index: number;
  /** The server's id, when it sent a non-empty string. */
  wireId?: string;
  /** What the server sent as id when it was not a usable string (e.g. an integer), to tell calls apart. */
  otherId?: string;
  name: string;
  arguments: string;
}

export interface ToolCallAccumulatorOptions {
  /** Makes the id for a call the server gave none; `n` counts calls from 1. Default `call_<n>`. */
  makeId?: (n: number) => string;
}

function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export class ToolCallAccumulator {
  private readonly slots: Slot[] = [];
  /** The slot that fragments for each wire index currently go to. */
  private readonly current = new Map<number, Slot>();
  private readonly makeId: (n: number) => string;

  constructor(options: ToolCallAccumulatorOptions = {}) {
    this.makeId = options.makeId ?? ((n) => `call_${n}`);
  }

  /** True once any fragment has been seen. */
  get hasCalls(): boolean {
    return this.slots.length > 0;
  }

  /**
   * Adds every item of one chunk's `delta.tool_calls`. `position` in the array stands in for
   * a missing index (a whole batch without indexes is still several calls).
   */
  addAll(deltas: unknown): void {
    if (!Array.isArray(deltas)) return;
    deltas.forEach((delta, position) => {
      if (delta !== null && typeof delta === 'object') this.add(delta as ToolCallDelta, position);
    });
  }

  add(delta: ToolCallDelta, position = 0): void {
    const index = typeof delta.index === 'number' && Number.isInteger(delta.index) ? delta.index : position;
    const id = typeof delta.id === 'string' ? delta.id : undefined;
    const otherId = typeof delta.id === 'number' ? String(delta.id) : undefined;
    const name = typeof delta.function?.name === 'string' ? delta.function.name : '';
    const piece = typeof delta.function?.arguments === 'string' ? delta.function.arguments : '';
    // Some servers send arguments as an object rather than a JSON string.
    const objectArguments =
      delta.function?.arguments !== undefined && delta.function.arguments !== null && typeof delta.function.arguments === 'object'
        ? JSON.stringify(delta.function.arguments)
        : '';

    let slot = this.current.get(index);
    if (slot && this.startsAnotherCall(slot, id, otherId, name)) slot = undefined;
    if (!slot) {
      slot = { index, name: '', arguments: '' };
      this.slots.push(slot);
      this.current.set(index, slot);
    }
    if (id) slot.wireId ??= id;
    if (otherId !== undefined) slot.otherId ??= otherId;
    if (name) slot.name = name;
    slot.arguments += piece || objectArguments;
  }

  /**
   * Whether a fragment at an index already in use belongs to a new call: a different id
   * says so outright (Ollama's parallel batch at index 0). Without ids, a named fragment
   * arriving after the slot's arguments already form a whole JSON value can only be the
   * next call (a name resent with the next piece would find them still incomplete).
   */
  private startsAnotherCall(slot: Slot, id: string | undefined, otherId: string | undefined, name: string): boolean {
    if (id && slot.wireId && id !== slot.wireId) return true;
    if (otherId !== undefined && slot.otherId !== undefined && otherId !== slot.otherId) return true;
    if (!id && !slot.wireId && otherId === undefined && slot.otherId === undefined && name !== '' && slot.name !== '') {
      return slot.arguments.trim() !== '' && isCompleteJson(slot.arguments);
    }
    return false;
  }

  /**
   * The finished calls, in the order they were opened. `toolCallsFinish` says whether the
   * server ended with `finish_reason: "tool_calls"`; without it, half-written calls are dropped.
   * Empty arguments become "{}" (a call without parameters); a call with no name is kept
   * only when the server said it made tool calls, with `parseError` set so the loop can answer.
   */
  finish(toolCallsFinish: boolean): ToolCall[] {
    const calls: ToolCall[] = [];
    this.slots.forEach((slot, position) => {
      const args = slot.arguments.trim() === '' ? '{}' : slot.arguments;
      const parses = isCompleteJson(args);
      if (!toolCallsFinish && (!parses || slot.name === '')) return;
      const call: ToolCall = { id: slot.wireId || this.makeId(position + 1), name: slot.name, arguments: args };
      if (slot.name === '') call.parseError = 'The tool call had no tool name.';
      calls.push(call);
    });
    return calls;
  }
}
