/**
 * Ports of Hermes' tests/tools/test_fuzzy_match.py (reference/hermes-spec.md §11.4): one `it`
 * per Hermes test, titled with the Hermes class and test name. Inputs were rewritten for this
 * suite where the table only gives the idea of the test.
 *
 * Every row of §11.4 applies in the browser; none is left out. Knack-only checks (CRLF line
 * endings, overlap handling, speed on 100,000 characters) follow the ported block.
 */
import { describe, expect, it } from 'vitest';
import {
  NO_MATCH_ERROR,
  findMatches,
  filePreview,
  findClosestLines,
  formatNoMatchHint,
  fuzzyFindAndReplace,
  reindentReplacement,
  similarityRatio,
  suspiciousIndentation,
} from '../../src/skills/fuzzyPatch';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';

const indentOf = (line: string) => line.length - line.trimStart().length;
const lineWith = (text: string, marker: string) => {
  const line = text.split('\n').find((l) => l.includes(marker));
  if (line === undefined) throw new Error(`no line contains ${marker}`);
  return line;
};

describe('TestExactMatch', () => {
  it('TestExactMatch.test_single_replacement', () => {
    const r = fuzzyFindAndReplace('hello world', 'hello', 'hi');
    expect(r).toEqual({ content: 'hi world', count: 1, strategy: 'exact', error: null });
  });

  it('TestExactMatch.test_no_match', () => {
    const r = fuzzyFindAndReplace('hello world', 'xyz', 'abc');
    expect(r.count).toBe(0);
    expect(r.error).toBe(NO_MATCH_ERROR);
    expect(r.content).toBe('hello world');
  });

  it('TestExactMatch.test_empty_old_string', () => {
    const r = fuzzyFindAndReplace('abc', '', 'x');
    expect(r.count).toBe(0);
    expect(r.strategy).toBeNull();
    expect(r.error).toMatch(/cannot be empty/);
  });

  it('TestExactMatch.test_identical_strings', () => {
    const r = fuzzyFindAndReplace('abc', 'abc', 'abc');
    expect(r.count).toBe(0);
    expect(r.strategy).toBeNull();
    expect(r.error).toContain('identical');
  });

  it('TestExactMatch.test_multiline_exact', () => {
    const r = fuzzyFindAndReplace('line1\nline2\nline3', 'line1\nline2', 'replaced');
    expect(r.error).toBeNull();
    expect(r.count).toBe(1);
    expect(r.content).toBe('replaced\nline3');
  });
});

describe('TestWhitespaceDifference', () => {
  it('TestWhitespaceDifference.test_extra_spaces_match', () => {
    const r = fuzzyFindAndReplace('def  foo(  x,  y  ):', 'def foo( x, y ):', 'def bar(x, y):');
    expect(r.count).toBe(1);
    expect(r.content).toBe('def bar(x, y):');
  });

  it('TestWhitespaceDifference.test_boundary_space_preserved_after_match', () => {
    const r = fuzzyFindAndReplace('foo   bar baz', 'foo bar', 'XY');
    expect(r.error).toBeNull();
    expect(r.strategy).toBe('whitespace_normalized');
    expect(r.content).toBe('XY baz');
  });

  it('TestWhitespaceDifference.test_boundary_space_preserved_in_code_edit', () => {
    const r = fuzzyFindAndReplace('result = compute(a,  b) + tail', 'compute(a, b)', 'compute(a, b, c)');
    expect(r.error).toBeNull();
    expect(r.strategy).toBe('whitespace_normalized');
    expect(r.content).toBe('result = compute(a, b, c) + tail');
  });

  it('TestWhitespaceDifference.test_trailing_ws_still_consumed_when_match_ends_with_space', () => {
    // The pattern ends with a blank, so the whole run of blanks after "foo" is part of the match.
    const r = fuzzyFindAndReplace('a = foo\t\t  bar', 'foo  ', 'XY');
    expect(r.strategy).toBe('whitespace_normalized');
    expect(r.content).toBe('a = XYbar');
  });
});

describe('TestIndentDifference', () => {
  it('TestIndentDifference.test_different_indentation', () => {
    const r = fuzzyFindAndReplace('    def foo():\n        pass', 'def foo():\n    pass', 'def bar():\n    return 1');
    expect(r.count).toBe(1);
    expect(r.content).toBe('    def bar():\n        return 1');
  });
});

describe('TestIndentationPreservation', () => {
  it('TestIndentationPreservation.test_unindented_input_reindented_to_match_file', () => {
    const content = 'class Calculator:\n    def add(self, a, b):\n        result = a + b\n        return result\n';
    const r = fuzzyFindAndReplace(content, 'result = a + b\nreturn result', 'result = a + b\nresult *= 2\nreturn result');
    expect(r.error).toBeNull();
    expect(r.strategy).not.toBe('exact');
    for (const marker of ['result = a + b', 'result *= 2', 'return result']) {
      expect(indentOf(lineWith(r.content, marker))).toBe(8);
    }
    // Still well-formed: the class header and method header are untouched.
    expect(r.content.startsWith('class Calculator:\n    def add(self, a, b):\n')).toBe(true);
  });

  it('TestIndentationPreservation.test_dedent_at_start_anchors_to_file_base', () => {
    // The model's base indent is 2 spaces; its new first line is indented less than that.
    const content = 'module:\n    class X:\n        return 1\n';
    const r = fuzzyFindAndReplace(content, '  class X:\n      return 1', 'class X:\n      return 99');
    expect(r.error).toBeNull();
    expect(r.content).toBe('module:\n    class X:\n        return 99\n');
  });

  it('TestIndentationPreservation.test_exact_match_no_reindent', () => {
    const content = '    a = 1\n    b = 2\n';
    const r = fuzzyFindAndReplace(content, '    a = 1', 'a = 10');
    expect(r.strategy).toBe('exact');
    expect(r.content).toBe('a = 10\n    b = 2\n');
  });

  it('TestIndentationPreservation.test_llm_zero_indent_shifts_to_file_two_space', () => {
    const content = 'def f():\n  x = 1\n  y = 2\n';
    const r = fuzzyFindAndReplace(content, 'x = 1\ny = 2', 'x = 1\nif x:\n  y = 3');
    expect(r.error).toBeNull();
    expect(r.content).toBe('def f():\n  x = 1\n  if x:\n    y = 3\n');
  });

  it('TestIndentationPreservation.test_indent_already_matches_passthrough', () => {
    // Same base indent, only inner spacing differs (whitespace_normalized): new_string unchanged.
    const content = 'def f():\n    x  =  1\n';
    const r = fuzzyFindAndReplace(content, '    x = 1', '    x = 2\n      # deeper comment');
    expect(r.strategy).not.toBe('exact');
    expect(r.content).toBe('def f():\n    x = 2\n      # deeper comment\n');
  });

  it('TestIndentationPreservation.test_blank_lines_left_alone', () => {
    const r = fuzzyFindAndReplace('    a = 1\n    b = 2\n', 'a = 1\nb = 2', 'a = 1\n\nb = 99');
    expect(r.error).toBeNull();
    expect(r.content.split('\n').slice(0, 3)).toEqual(['    a = 1', '', '    b = 99']);
  });
});

describe('TestReplaceAll', () => {
  it('TestReplaceAll.test_multiple_matches_without_flag_errors', () => {
    const r = fuzzyFindAndReplace('aaa bbb aaa', 'aaa', 'ccc');
    expect(r.count).toBe(0);
    expect(r.error).toContain('Found 2 matches');
    expect(r.content).toBe('aaa bbb aaa');
  });

  it('TestReplaceAll.test_multiple_matches_with_flag', () => {
    const r = fuzzyFindAndReplace('aaa bbb aaa', 'aaa', 'ccc', true);
    expect(r.error).toBeNull();
    expect(r.count).toBe(2);
    expect(r.content).toBe('ccc bbb ccc');
  });

  it('TestReplaceAll.test_self_overlapping_pattern_non_overlapping_matches', () => {
    expect(fuzzyFindAndReplace('aaaa', 'aa', 'b', true)).toMatchObject({ content: 'bb', count: 2 });
    expect(fuzzyFindAndReplace('aaa', 'a', 'b', true)).toMatchObject({ content: 'bbb', count: 3 });
    expect(fuzzyFindAndReplace('prefix aaaa suffix', 'aa', 'b', true)).toMatchObject({ content: 'prefix bb suffix', count: 2 });
    const single = fuzzyFindAndReplace('aaaa', 'aa', 'b');
    expect(single.count).toBe(0);
    expect(single.error).toContain('2 matches');
  });
});

describe('TestUnicodeNormalized', () => {
  it('TestUnicodeNormalized.test_em_dash_matched', () => {
    const r = fuzzyFindAndReplace('return value\u2014fallback', 'return value--fallback', 'return value or fallback');
    expect(r.count).toBe(1);
    expect(r.strategy).toBe('unicode_normalized');
    expect(r.content).toBe('return value or fallback');
  });

  it('TestUnicodeNormalized.test_smart_quotes_matched', () => {
    const r = fuzzyFindAndReplace('say \u201chello\u201d and \u2018bye\u2019', 'say "hello" and \'bye\'', 'say nothing');
    expect(r.count).toBe(1);
    expect(r.strategy).toBe('unicode_normalized');
    expect(r.content).toBe('say nothing');
  });

  it('TestUnicodeNormalized.test_plain_text_uses_exact', () => {
    const r = fuzzyFindAndReplace('dash \u2014 here and plain text', 'plain text', 'other text');
    expect(r.strategy).toBe('exact');
    expect(r.content).toBe('dash \u2014 here and other text');
  });

  it('TestUnicodeNormalized.test_em_dash_preserved_in_unchanged_part', () => {
    const r = fuzzyFindAndReplace('alpha \u2014 beta gamma', 'alpha -- beta gamma', 'alpha -- beta delta');
    expect(r.strategy).toBe('unicode_normalized');
    expect(r.content).toBe('alpha \u2014 beta delta');
  });

  it('TestUnicodeNormalized.test_smart_quotes_preserved_in_unchanged_part', () => {
    const r = fuzzyFindAndReplace('He said \u201cyes\u201d today', 'He said "yes" today', 'He said "yes" tomorrow');
    expect(r.strategy).toBe('unicode_normalized');
    expect(r.content).toBe('He said \u201cyes\u201d tomorrow');
  });

  it('TestUnicodeNormalized.test_ellipsis_preserved', () => {
    const r = fuzzyFindAndReplace('Wait for it\u2026and done', 'Wait for it...and done', 'Wait for it...then done');
    expect(r.count).toBe(1);
    expect(r.content).toBe('Wait for it\u2026then done');
  });

  it('TestUnicodeNormalized.test_mixed_unicode_multiline', () => {
    const content = 'Line 1 \u2014 with dash\nLine 2 \u201cquoted\u201d text\nLine 3 plain';
    const r = fuzzyFindAndReplace(
      content,
      'Line 1 -- with dash\nLine 2 "quoted" text\nLine 3 plain',
      'Line 1 -- with dash\nLine 2 "quoted" text\nLine 3 changed',
    );
    expect(r.count).toBe(1);
    expect(r.content).toBe('Line 1 \u2014 with dash\nLine 2 \u201cquoted\u201d text\nLine 3 changed');
  });

  it('TestUnicodeNormalized.test_no_unicode_no_change', () => {
    const r = fuzzyFindAndReplace('plain text here', 'plain text here', 'plain text there');
    expect(r.count).toBe(1);
    expect(r.content).toBe('plain text there');
  });
});

describe('TestBlockAnchorThreshold', () => {
  it('TestBlockAnchorThreshold.test_high_similarity_matches', () => {
    const content = 'def foo():\n    x = 1\n    y = 2\n    return x + y\n';
    const r = fuzzyFindAndReplace(content, 'def foo():\n    x = 1\n    y = 9\n    return x + y', 'def foo():\n    return 0');
    expect(r.count).toBe(1);
    expect(r.strategy).toBe('block_anchor');
    expect(r.content).toBe('def foo():\n    return 0\n');
  });

  it('TestBlockAnchorThreshold.test_completely_different_middle_does_not_match', () => {
    const content = "class Foo:\n    completely = 'unrelated'\n    content = 'here'\n    nothing = 'in common'\n    pass\n";
    const r = fuzzyFindAndReplace(content, 'class Foo:\n    x = 1\n    y = 2\n    z = 3\n    pass', 'replaced');
    expect(r.count).toBe(0);
    expect(r.content).toBe(content);
  });
});

describe('TestStrategyNameSurfaced', () => {
  it('TestStrategyNameSurfaced.test_exact_strategy_name', () => {
    const r = fuzzyFindAndReplace('hello', 'hello', 'world');
    expect(r.strategy).toBe('exact');
    expect(r.count).toBe(1);
  });

  it('TestStrategyNameSurfaced.test_failed_match_returns_none_strategy', () => {
    const r = fuzzyFindAndReplace('hello', 'xyz', 'world');
    expect(r.count).toBe(0);
    expect(r.strategy).toBeNull();
  });
});

describe('TestEscapeDriftGuard', () => {
  it('TestEscapeDriftGuard.test_drift_blocked_apostrophe', () => {
    const content = 'line\n    x = 1\nline';
    const r = fuzzyFindAndReplace(content, "line\n  x = \\'a\\'\nline", "line\n  x = \\'b\\'\nline");
    expect(r.count).toBe(0);
    expect(r.error).toContain('Escape-drift');
    expect(r.error!.toLowerCase()).toContain('backslash');
    expect(r.content).toBe(content);
  });

  it('TestEscapeDriftGuard.test_drift_blocked_double_quote', () => {
    const content = 'line\n    x = 1\nline';
    const r = fuzzyFindAndReplace(content, 'line\n  x = \\"a\\"\nline', 'line\n  x = \\"b\\"\nline');
    expect(r.count).toBe(0);
    expect(r.error).toContain('Escape-drift');
    expect(r.content).toBe(content);
  });

  it('TestEscapeDriftGuard.test_drift_allowed_when_file_genuinely_has_backslash_escapes', () => {
    const content = "line\n    x = \\'a\\'\nline";
    const r = fuzzyFindAndReplace(content, "line\n  x = \\'a\\'\nline", "line\n  x = \\'b\\'\nline");
    expect(r.error).toBeNull();
    expect(r.count).toBe(1);
    expect(r.content).toContain("\\'b\\'");
  });

  it('TestEscapeDriftGuard.test_drift_allowed_on_exact_match', () => {
    const r = fuzzyFindAndReplace("hello \\'world\\'", "hello \\'world\\'", "hello \\'there\\'");
    expect(r.error).toBeNull();
    expect(r.strategy).toBe('exact');
    expect(r.content).toBe("hello \\'there\\'");
  });

  it('TestEscapeDriftGuard.test_drift_allowed_when_only_new_string_has_escapes', () => {
    const r = fuzzyFindAndReplace('def f():\n    pass', 'def f():\n  pass', "def f():\n  print(\\'hi\\')");
    expect(r.error).toBeNull();
    expect(r.count).toBe(1);
  });

  it('TestEscapeDriftGuard.test_no_drift_check_when_new_string_lacks_suspect_chars', () => {
    const r = fuzzyFindAndReplace('def foo():\n    pass', 'def foo():\n  pass', 'def bar():\n  return 1');
    expect(r.error).toBeNull();
    expect(r.count).toBe(1);
  });
});

describe('TestFindClosestLines', () => {
  it('TestFindClosestLines.test_finds_similar_line', () => {
    const result = findClosestLines('def baz():', 'def foo():\n    pass\ndef bar():\n    return 1\n');
    expect(result).toMatch(/def foo|def bar/);
  });

  it('TestFindClosestLines.test_returns_empty_for_no_similar_content', () => {
    expect(findClosestLines('totally_unique_xyzzy_qux', 'abc\nxyz\n')).toBe('');
  });

  it('TestFindClosestLines.test_returns_empty_for_empty_inputs', () => {
    expect(findClosestLines('', 'some content')).toBe('');
    expect(findClosestLines('something', '')).toBe('');
  });

  it('TestFindClosestLines.test_includes_context_lines', () => {
    const content = 'a1\na2\na3\ndef target():\nb1\nb2\nb3\n';
    const result = findClosestLines('def target():', content);
    expect(result).toContain('a2');
    expect(result).toContain('a3');
    expect(result).toContain('b1');
    expect(result).not.toContain('a1');
  });

  it('TestFindClosestLines.test_includes_line_numbers', () => {
    const result = findClosestLines('def foo():', 'line1\nline2\ndef foo():\n    pass\n');
    expect(result).toContain('   3| def foo():');
  });
});

describe('TestFormatNoMatchHint', () => {
  const similar = 'def foo():\n    pass\ndef bar():\n    pass\n';

  it('TestFormatNoMatchHint.test_fires_on_could_not_find_with_match', () => {
    const hint = formatNoMatchHint(NO_MATCH_ERROR, 0, 'def baz():', similar);
    expect(hint.startsWith('\n\nDid you mean one of these sections?\n')).toBe(true);
    expect(hint).toMatch(/foo|bar/);
  });

  it('TestFormatNoMatchHint.test_silent_on_ambiguous_match_error', () => {
    expect(formatNoMatchHint('Found 2 matches for old_string.', 0, 'def baz():', similar)).toBe('');
  });

  it('TestFormatNoMatchHint.test_silent_on_escape_drift_error', () => {
    expect(formatNoMatchHint("Escape-drift detected: \\'", 0, "x = \\'1\\'", 'x = 1\n')).toBe('');
  });

  it('TestFormatNoMatchHint.test_silent_on_identical_strings_error', () => {
    expect(formatNoMatchHint('old_string and new_string are identical', 0, 'def foo():', similar)).toBe('');
  });

  it('TestFormatNoMatchHint.test_silent_when_match_count_nonzero', () => {
    expect(formatNoMatchHint(NO_MATCH_ERROR, 1, 'def baz():', similar)).toBe('');
  });

  it('TestFormatNoMatchHint.test_silent_on_none_error', () => {
    expect(formatNoMatchHint(null, 0, 'def baz():', similar)).toBe('');
  });

  it('TestFormatNoMatchHint.test_silent_when_no_similar_content', () => {
    expect(formatNoMatchHint(NO_MATCH_ERROR, 0, 'totally_unique_xyzzy_qux', 'abc\nxyz\n')).toBe('');
  });
});

describe('TestEscapeNormalizedNewString', () => {
  it('TestEscapeNormalizedNewString.test_tab_in_new_string_unescaped_under_escape_normalized', () => {
    const content = 'def hello():\n\tprint("before")\n';
    const r = fuzzyFindAndReplace(content, 'def hello():\n\\tprint("before")\n', 'def hello():\n\\tprint("after")\n');
    expect(r.error).toBeNull();
    expect(r.strategy).toBe('escape_normalized');
    expect(r.content).toBe('def hello():\n\tprint("after")\n');
  });

  it('TestEscapeNormalizedNewString.test_tab_in_new_string_unescaped_under_exact', () => {
    const content = 'def hello():\n\tprint("before")\n';
    const r = fuzzyFindAndReplace(content, '\tprint("before")', '\\tprint("after")');
    expect(r.strategy).toBe('exact');
    expect(r.content).toBe('def hello():\n\tprint("after")\n');
  });

  it('TestEscapeNormalizedNewString.test_carriage_return_in_new_string_unescaped', () => {
    const r = fuzzyFindAndReplace('line1\r\nline2\r\n', 'line1\\r\\nline2\\r\\n', 'replaced\\r\\n');
    expect(r.error).toBeNull();
    expect(r.strategy).toBe('escape_normalized');
    expect(r.content).toContain('replaced\r');
    expect(r.content).not.toContain('\\r');
  });

  it('TestEscapeNormalizedNewString.test_newline_in_new_string_NOT_unescaped', () => {
    const r = fuzzyFindAndReplace('line1\nline2\n', 'line1\nline2', 'alpha\\nbeta');
    expect(r.count).toBe(1);
    expect(r.content).toBe('alpha\\nbeta\n');
  });

  it('TestEscapeNormalizedNewString.test_mixed_tab_and_newline_only_tab_unescaped', () => {
    const r = fuzzyFindAndReplace('def foo():\n\tpass\n', 'def foo():\n\tpass\n', 'def bar():\\n\\treturn 1\\n');
    expect(r.count).toBe(1);
    expect(r.content).toBe('def bar():\\n\treturn 1\\n');
  });

  it('TestEscapeNormalizedNewString.test_exact_match_preserves_literal_backslash_t_in_string_literal', () => {
    const r = fuzzyFindAndReplace('sep = "\\t"\n', 'sep = "\\t"\n', 'sep = "\\tab"\n');
    expect(r.strategy).toBe('exact');
    expect(r.content).toBe('sep = "\\tab"\n');
    expect(r.content).not.toContain('\t');
  });

  it('TestEscapeNormalizedNewString.test_no_escape_sequences_passthrough', () => {
    const r = fuzzyFindAndReplace('def foo():\n    return 1\n', 'def foo():\n    return 1\n', 'def foo():\n    return 2\n');
    expect(r.content).toBe('def foo():\n    return 2\n');
  });
});

// ---------------------------------------------------------------------------------------------
// Knack-specific behaviour

describe('Knack: strategies and file shapes', () => {
  it('line_trimmed keeps CRLF line endings and converts LF replacements', () => {
    const content = 'a\r\n  b\r\nc\r\n';
    const r = fuzzyFindAndReplace(content, 'a\nb', 'x\ny');
    expect(r.strategy).toBe('line_trimmed');
    expect(r.content).toBe('x\r\ny\r\nc\r\n');
  });

  it('indentation_flexible matches when only leading whitespace differs and trailing spaces stay', () => {
    const r = fuzzyFindAndReplace('\tfoo()  \n\tbar()\n', 'foo()  \n  bar()', 'baz()');
    expect(['line_trimmed', 'indentation_flexible']).toContain(r.strategy);
    expect(r.count).toBe(1);
  });

  it('trimmed_boundary tolerates stray spaces on the first and last lines only', () => {
    const content = '  start\n  middle  stays\n  end  \n';
    const r = fuzzyFindAndReplace(content, 'start \n  middle  stays\nend', 'done');
    expect(r.count).toBe(1);
    expect(r.content).toBe('  done\n');
  });

  it('context_aware matches a block whose lines are each nearly the same', () => {
    const content = 'alpha one\nbeta two\ngamma three\n';
    const r = fuzzyFindAndReplace(content, 'alpha one!\nbeta twoo\ngamma three', 'replaced');
    expect(r.strategy).toBe('context_aware');
    expect(r.content).toBe('replaced\n');
  });

  it('replace_all on overlapping line windows is refused: they are approximate matches', () => {
    const r = fuzzyFindAndReplace('  x\n  x\n  x\n', 'x\nx', 'y', true);
    expect(r.error).toContain('replace_all only applies to exact matches');
    expect(r.content).toBe('  x\n  x\n  x\n');
  });

  it('similarityRatio follows difflib on known pairs', () => {
    expect(similarityRatio('abcd', 'bcde')).toBeCloseTo(0.75);
    expect(similarityRatio('', '')).toBe(1);
    expect(similarityRatio('abc', 'xyz')).toBe(0);
  });

  it('filePreview cuts at 500 characters and adds ...', () => {
    expect(filePreview('x'.repeat(500))).toBe('x'.repeat(500));
    expect(filePreview('x'.repeat(501))).toBe(`${'x'.repeat(500)}...`);
  });
});

describe('Knack: context_aware needs every line', () => {
  const steps = 'step one: fetch the sources\nstep two: build the package\nstep three: run the tests\nstep four: publish the release\n';

  it('an old_string whose two middle lines are unrelated to the file does not match', () => {
    // Anchors retyped slightly (so no exact-anchor strategy applies), middle lines garbage:
    // the old half-of-the-lines rule matched this and deleted the two real middle lines.
    const old = 'step one: fetch the source\nzebra giraffe hippo\nquantum flux capacitor\nstep four: publish the releases';
    expect(findMatches(steps, old)).toBeNull();
    const r = fuzzyFindAndReplace(steps, old, 'replaced');
    expect(r).toMatchObject({ count: 0, strategy: null, error: NO_MATCH_ERROR, content: steps });
  });

  it('the same block with every line nearly right still matches', () => {
    const old = 'step one: fetch the source\nstep two: build the packages\nstep 3: run the tests\nstep four: publish the releases';
    const r = fuzzyFindAndReplace(steps, old, 'replaced');
    expect(r.strategy).toBe('context_aware');
    expect(r.content).toBe('replaced\n');
  });

  it('the first and last non-blank lines are anchors that must fit', () => {
    // Two of three lines fit (enough under the half rule); the first anchor does not.
    expect(fuzzyFindAndReplace('alpha one\nbeta two\ngamma three\n', 'totally unrelated\nbeta twoo\ngamma three!', 'x').count).toBe(0);
    expect(fuzzyFindAndReplace('alpha one\nbeta two\ngamma three\n', 'alpha one!\nbeta twoo\nnothing alike', 'x').count).toBe(0);
  });

  it('a blank line of old_string never stands in for a real line', () => {
    const content = 'alpha one\nbeta two\ngamma three\n';
    expect(fuzzyFindAndReplace(content, 'alpha one!\n\ngamma three!', 'x').count).toBe(0);
    const spaced = 'alpha one\n\ngamma three\n';
    expect(fuzzyFindAndReplace(spaced, 'alpha one!\n\ngamma three!', 'x')).toMatchObject({ count: 1, content: 'x\n' });
  });
});

describe('Knack: newest guards', () => {
  it('refuses an old_string that is only whitespace', () => {
    for (const old of [' ', '\n', '  \n\t \n']) {
      const r = fuzzyFindAndReplace('a  b\n\n  c\n', old, 'x');
      expect(r.count).toBe(0);
      expect(r.error).toContain('provide non-blank text to match');
      expect(r.content).toBe('a  b\n\n  c\n');
    }
  });

  it('refuses replace_all when the match is approximate, even for one match', () => {
    const twice = 'a  b\nc\na  b\n';
    const r = fuzzyFindAndReplace(twice, 'a b', 'x', true);
    expect(r).toMatchObject({ count: 0, strategy: null, content: twice });
    expect(r.error).toContain('replace_all only applies to exact matches');
    expect(fuzzyFindAndReplace('a  b\nc\n', 'a b', 'x', true).error).toContain('replace_all only applies to exact matches');
    // The same patch without replace_all works where it is unique.
    expect(fuzzyFindAndReplace('a  b\nc\n', 'a b', 'x')).toMatchObject({ count: 1, content: 'x\nc\n' });
  });

  it('exact replace_all still replaces every match', () => {
    expect(fuzzyFindAndReplace('a b\nc\na b\n', 'a b', 'x', true)).toMatchObject({ count: 2, strategy: 'exact', content: 'x\nc\nx\n' });
  });

  it('an ambiguity error lists the line numbers and text of the matches', () => {
    const r = fuzzyFindAndReplace('intro\nfoo = 1\nmiddle\n  call(foo = 1)\nend\n', 'foo = 1', 'foo = 2');
    expect(r.count).toBe(0);
    expect(r.error).toContain('Found 2 matches');
    expect(r.error).toContain('line 2: "foo = 1"');
    expect(r.error).toContain('line 4: "call(foo = 1)"');
    expect(r.error).toContain('replace_all=True');
  });

  it('an approximate ambiguity lists the matches and does not suggest replace_all', () => {
    const r = fuzzyFindAndReplace('x\n  foo = 1\ny\n    foo = 1\n', 'foo  =  1', 'z');
    expect(r.error).toContain('Found 2 matches');
    expect(r.error).toContain('line 2: "foo = 1"');
    expect(r.error).toContain('line 4: "foo = 1"');
    expect(r.error).not.toContain('replace_all=True');
  });

  it('an ambiguity error lists at most five matches and counts the rest', () => {
    const r = fuzzyFindAndReplace(Array.from({ length: 8 }, (_, i) => `item ${i} todo`).join('\n'), 'todo', 'done');
    expect(r.error).toContain('Found 8 matches');
    expect(r.error).toContain('line 5: "item 4 todo"');
    expect(r.error).not.toContain('line 6:');
    expect(r.error).toContain('and 3 more');
  });

  it('keeps CRLF line endings on an approximate multi-line patch', () => {
    const content = 'a:\r\n    b\r\n    c\r\nd\r\n';
    const r = fuzzyFindAndReplace(content, 'b\nc', 'b\nc2');
    expect(r.content).toBe('a:\r\n    b\r\n    c2\r\nd\r\n');
  });
});

describe('Knack: suspicious indentation', () => {
  const calculator = 'class Calculator:\n    def add(self, a, b):\n        result = a + b\n        return result\n';
  const old = 'result = a + b\nreturn result';

  it('refuses a new_string with one inserted line typed at the file indentation', () => {
    const handIndented = 'result = a + b\n        result *= 2\nreturn result';
    // Why: re-indentation would shift that line by another 8 columns, off the block.
    const shifted = reindentReplacement('        result = a + b\n        return result', old, handIndented);
    expect(indentOf(lineWith(shifted, 'result *= 2'))).toBe(16);
    const r = fuzzyFindAndReplace(calculator, old, handIndented);
    expect(r).toMatchObject({ count: 0, strategy: null, content: calculator });
    expect(r.error).toContain('Suspicious indentation');
    expect(r.error).toContain('line 2');
    expect(r.error).toContain("relative to old_string's indentation");
  });

  it('refuses a new_string written at the file indentation as a whole', () => {
    const r = fuzzyFindAndReplace(calculator, old, '        result = a + b\n        return result * 2');
    expect(r.error).toContain('Suspicious indentation');
    expect(r.error).toContain('line 1');
    expect(r.content).toBe(calculator);
  });

  it('accepts a whole block re-indented consistently, nested lines included', () => {
    const r = fuzzyFindAndReplace(calculator, old, 'result = a + b\nif result > 10:\n    result = 10\nreturn result');
    expect(r.error).toBeNull();
    expect(r.content).toBe(
      'class Calculator:\n    def add(self, a, b):\n        result = a + b\n        if result > 10:\n            result = 10\n        return result\n',
    );
  });

  it('accepts nesting after a YAML key, a Markdown list item, or a step the block already uses', () => {
    const yaml = fuzzyFindAndReplace('root:\n    name: x\n    tags: y\n', 'name: x\ntags: y', 'name: x\ntags:\n    - y');
    expect(yaml.error).toBeNull();
    expect(yaml.content).toBe('root:\n    name: x\n    tags:\n        - y\n');
    const list = fuzzyFindAndReplace('Steps:\n  - build\n  - test\n', '- build\n- test', '- build\n  with --release\n- test');
    expect(list.error).toBeNull();
    expect(list.content).toBe('Steps:\n  - build\n    with --release\n  - test\n');
    const stepped = fuzzyFindAndReplace('    a\n        b\n    c\n', 'a\n    b\nc', 'a\n    b2\nc');
    expect(stepped.error).toBeNull();
    expect(stepped.content).toBe('    a\n        b2\n    c\n');
  });

  it('does not apply to exact matches or when the model indented deeper than the file', () => {
    expect(fuzzyFindAndReplace('x = 1\ny = 2\n', 'x = 1', 'x = 1\n        z = 3').error).toBeNull();
    expect(suspiciousIndentation('x = 1\ny = 2', '    x = 1\n    y = 2', 'x = 1\n        z = 3')).toBeNull();
    // Tabs against spaces: the bases are not comparable, so no verdict.
    expect(suspiciousIndentation('\tx = 1', '  x = 1', '  x = 1\n\t\t\tz')).toBeNull();
  });
});

describe('Knack: skill_manage patch reports the guards as failures that say what to do', () => {
  const body = '# Deploy\n\n    npm run build\n    npm test\n    npm run build\n\nstep one: fetch the sources\nstep two: build the package\nstep three: run the tests\nstep four: publish the release\n';
  const setup = async () => {
    const t = createTestEngine();
    expect((await t.manage({ action: 'create', name: 'deploy', content: skillContent('deploy', 'Use when deploying.', body) })).success).toBe(true);
    return t;
  };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['whitespace-only old_string', { old_string: '   \n  ', new_string: 'x' }, 'provide non-blank text to match'],
    ['approximate replace_all', { old_string: 'npm  test', new_string: 'npm run test', replace_all: true }, 'replace_all only applies to exact matches'],
    ['ambiguous old_string', { old_string: 'npm run build', new_string: 'npm run bundle' }, 'line 8: "npm run build"; line 10: "npm run build"'],
    ['hand-indented inserted line', { old_string: 'npm run build\nnpm test', new_string: 'npm run build\n        npm run lint\nnpm test' }, 'Suspicious indentation'],
    ['garbage middle lines', { old_string: 'step one: fetch the source\nzebra giraffe hippo\nquantum flux capacitor\nstep four: publish the releases', new_string: 'x' }, 'Could not find a match'],
  ];
  for (const [label, args, message] of cases) {
    it(`${label}: success false, the file unchanged`, async () => {
      const t = await setup();
      const before = await t.files.readText('skills/deploy/SKILL.md');
      const result = await t.manage({ action: 'patch', name: 'deploy', ...args });
      expect(result.success).toBe(false);
      expect(result.error).toContain(message);
      expect(await t.files.readText('skills/deploy/SKILL.md')).toBe(before);
    });
  }
});

// Speed is measured by `npm run bench` (bench/core/textBench.ts), never asserted here; these
// check that both paths give the right answer on a file at the size limit.
describe('Knack: a 100,000-character SKILL.md', () => {
  const lines: string[] = ['---', 'name: big', 'description: Use when testing speed.', '---'];
  for (let i = 0; lines.join('\n').length < 100_000; i++) {
    lines.push(`    step ${i}: run the tool with option ${i % 7} and check the output for item ${i}.`);
  }
  const big = lines.join('\n').slice(0, 100_000);

  it('a whitespace-only difference matches the one line', () => {
    const target = lines[600].trim().replace(/ /g, '  ');
    const r = fuzzyFindAndReplace(big, target, 'patched');
    expect(r.count).toBe(1);
    expect(r.content).toContain('    patched');
    expect(r.content).not.toContain(lines[600]);
  });

  it('no match falls through all nine strategies and leaves the text alone', () => {
    const missing = 'this text does not occur\nanywhere in the file at all\nreally not';
    const r = fuzzyFindAndReplace(big, missing, 'x');
    expect(r.count).toBe(0);
    expect(r.content).toBe(big);
  });
});
