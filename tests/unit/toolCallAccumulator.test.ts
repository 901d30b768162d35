import { describe, expect, it } from 'vitest';
import { ToolCallAccumulator } from '../../src/providers/toolCallAccumulator';

// The accumulator alone, fed the exact delta shapes of browser-platform.md §3. The same
// quirks over real HTTP are in openaiCompatible.test.ts.

const head = (index: number, id: unknown, name: string, args = '') => ({ index, id, type: 'function', function: { name, arguments: args } });
const piece = (index: number, args: string) => ({ index, function: { arguments: args } });

describe('ToolCallAccumulator', () => {
  it('concatenates argument pieces per index (OpenAI / llama.cpp fragments)', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([head(0, 'call_a', 'skill_view')]);
    tracker.addAll([piece(0, '{"name"')]);
    tracker.addAll([piece(0, ':"git"}')]);
    expect(tracker.finish(true)).toEqual([{ id: 'call_a', name: 'skill_view', arguments: '{"name":"git"}' }]);
  });

  it('keeps interleaved parallel calls apart by index', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([head(0, 'a', 'one')]);
    tracker.addAll([head(1, 'b', 'two')]);
    tracker.addAll([piece(0, '{"x":')]);
    tracker.addAll([piece(1, '{"y":')]);
    tracker.addAll([piece(0, '1}')]);
    tracker.addAll([piece(1, '2}')]);
    expect(tracker.finish(true)).toEqual([
      { id: 'a', name: 'one', arguments: '{"x":1}' },
      { id: 'b', name: 'two', arguments: '{"y":2}' },
    ]);
  });

  it('assigns a resent name instead of appending it', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([head(0, 'a', 'memory', '')]);
    tracker.addAll([head(0, 'a', 'memory', '{"action"')]);
    tracker.addAll([head(0, 'a', 'memory', ':"add"}')]);
    expect(tracker.finish(true)).toEqual([{ id: 'a', name: 'memory', arguments: '{"action":"add"}' }]);
  });

  it('opens a new call when a different id arrives at a used index (Ollama parallel batch)', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([head(0, 'call_1', 'skills_list', '{}')]);
    tracker.addAll([head(0, 'call_2', 'skill_view', '{"name":"git"}')]);
    expect(tracker.finish(true)).toEqual([
      { id: 'call_1', name: 'skills_list', arguments: '{}' },
      { id: 'call_2', name: 'skill_view', arguments: '{"name":"git"}' },
    ]);
  });

  it('takes a whole batch in one chunk', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([head(0, 'x', 'a', '{"n":1}'), head(1, 'y', 'b', '{"n":2}')]);
    expect(tracker.finish(true).map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['x', 'a', '{"n":1}'],
      ['y', 'b', '{"n":2}'],
    ]);
  });

  it('makes stable call_<n> ids when ids are missing, and tells integer ids apart', () => {
    const missing = new ToolCallAccumulator();
    missing.addAll([{ index: 0, function: { name: 'a', arguments: '{}' } }]);
    missing.addAll([{ index: 1, function: { name: 'b', arguments: '{}' } }]);
    expect(missing.finish(true).map((call) => call.id)).toEqual(['call_1', 'call_2']);

    const integers = new ToolCallAccumulator();
    integers.addAll([head(0, 0, 'a', '{"k":1}')]);
    integers.addAll([head(0, 1, 'b', '{"k":2}')]);
    const calls = integers.finish(true);
    expect(calls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['call_1', 'a', '{"k":1}'],
      ['call_2', 'b', '{"k":2}'],
    ]);
  });

  it('without ids, a named fragment after complete arguments at index 0 is the next call', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([{ index: 0, function: { name: 'a', arguments: '{"q":1}' } }]);
    tracker.addAll([{ index: 0, function: { name: 'b', arguments: '' } }]);
    tracker.addAll([{ index: 0, function: { arguments: '{"q":2}' } }]);
    expect(tracker.finish(true).map((call) => [call.name, call.arguments])).toEqual([
      ['a', '{"q":1}'],
      ['b', '{"q":2}'],
    ]);
  });

  it('uses the position in the array when the index is missing', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([{ id: 'p', function: { name: 'a', arguments: '{}' } }, { id: 'q', function: { name: 'b', arguments: '{}' } }]);
    expect(tracker.finish(true).map((call) => call.id)).toEqual(['p', 'q']);
  });

  it('accepts arguments sent as an object and turns empty arguments into {}', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([{ index: 0, id: 'o', function: { name: 'a', arguments: { deep: [1, 2] } } }]);
    tracker.addAll([head(1, 'e', 'skills_list', '')]);
    expect(tracker.finish(true).map((call) => call.arguments)).toEqual(['{"deep":[1,2]}', '{}']);
  });

  it('keeps broken JSON when the server finished with tool_calls (the loop reports it)', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([head(0, 'a', 'memory', '{"action": add')]);
    expect(tracker.finish(true)).toEqual([{ id: 'a', name: 'memory', arguments: '{"action": add' }]);
  });

  it('without finish_reason tool_calls, keeps only calls whose arguments parse (or are empty)', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll([head(0, 'a', 'good', '{"ok":true}')]);
    tracker.addAll([head(1, 'b', 'half', '{"ok":')]);
    tracker.addAll([head(2, 'c', 'empty', '')]);
    expect(tracker.finish(false).map((call) => call.name)).toEqual(['good', 'empty']);
  });

  it('flags a call with no name only when the server claimed tool calls', () => {
    const flagged = new ToolCallAccumulator();
    flagged.addAll([piece(0, '{}')]);
    const [call] = flagged.finish(true);
    expect(call.parseError).toMatch(/no tool name/);
    const dropped = new ToolCallAccumulator();
    dropped.addAll([piece(0, '{}')]);
    expect(dropped.finish(false)).toEqual([]);
  });

  it('ignores junk items', () => {
    const tracker = new ToolCallAccumulator();
    tracker.addAll('not an array');
    tracker.addAll([null, 3]);
    expect(tracker.hasCalls).toBe(false);
    expect(tracker.finish(true)).toEqual([]);
  });
});
