import { describe, expect, it } from 'vitest';
import { ThinkSplitter } from '../../../src/providers/webllm/thinkSplitter';

describe('ThinkSplitter', () => {
  it('holds back a partial tag and releases it when it turns out not to be one', () => {
    const splitter = new ThinkSplitter();
    expect(splitter.push('a <th')).toEqual({ reasoning: '', text: 'a ' });
    expect(splitter.push('ese')).toEqual({ reasoning: '', text: '<these' });
    expect(splitter.push('x <')).toEqual({ reasoning: '', text: 'x ' });
    expect(splitter.flush()).toEqual({ reasoning: '', text: '<' });
  });
});
