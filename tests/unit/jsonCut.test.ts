import { describe, expect, it } from 'vitest';
import { cutToolArguments, cutToolResult } from '../../src/agent/jsonCut';

describe('cutToolResult', () => {
  it('cuts the longest string inside the JSON, so the result stays valid with its success', () => {
    const result = JSON.stringify({ success: true, name: 'notes', content: 'line "quoted" \\ ü\n'.repeat(500) });
    const cut = cutToolResult(result, 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_100);
    const parsed = JSON.parse(cut) as { success: boolean; name: string; content: string };
    expect(parsed).toMatchObject({ success: true, name: 'notes' });
    expect(parsed.content).toMatch(/more characters; call the tool again if you need them\]$/);
  });

  it('never makes a cut that saves almost nothing: a 201-character error result stays whole', () => {
    const error = JSON.stringify({ success: false, error: `${'x'.repeat(160)} Send it again.` });
    expect(error.length).toBeGreaterThan(200);
    expect(cutToolResult(error, 200)).toBe(error);
    expect(cutToolResult(error, 190)).toBe(error);
  });

  it('replaces a result of many small values by a valid note when shortening strings cannot reach the room', () => {
    const list = JSON.stringify({ success: true, matches: Array.from({ length: 2_000 }, (_, n) => ({ id: n, score: n / 7 })) });
    const cut = JSON.parse(cutToolResult(list, 500)) as { success: boolean; cut: string };
    expect(cut.success).toBe(true);
    expect(cut.cut).toContain('too long for the context window');
  });

  it('cuts a result that is not JSON as text', () => {
    expect(cutToolResult('y'.repeat(5_000), 400)).toMatch(/^y{400}… \[cut to save room/);
  });
});

describe('cutToolArguments', () => {
  it('cuts a 1 MB content argument inside the JSON; the other arguments stay whole', () => {
    const args = JSON.stringify({ action: 'create', name: 'huge', content: 'z'.repeat(1_000_000) });
    const cut = cutToolArguments(args, 2_000);
    expect(cut.length).toBeLessThanOrEqual(2_100);
    const parsed = JSON.parse(cut) as Record<string, string>;
    expect(parsed.action).toBe('create');
    expect(parsed.name).toBe('huge');
    expect(parsed.content).toMatch(/^z+… \[cut to save room in the context window: \d+ more characters; the call was sent with all of it\]$/);
  });

  it('turns unreadable arguments into valid JSON holding their cut text (chat templates parse arguments)', () => {
    const cut = cutToolArguments(`{"content": "${'a'.repeat(10_000)}`, 1_000);
    expect((JSON.parse(cut) as { cut_arguments: string }).cut_arguments).toMatch(/^\{"content": "a+… \[cut/);
  });

  it('leaves short arguments alone', () => {
    expect(cutToolArguments('{"name":"x"}', 100)).toBe('{"name":"x"}');
  });
});
