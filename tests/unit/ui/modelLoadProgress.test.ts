/**
 * parseWebLlmProgress (src/ui/state/modelLoadProgress.ts) on the sentences web-llm 0.2.86 reports while loading (copied from what
 * its loader builds), and on ones it does not know.
 */
import { describe, expect, it } from 'vitest';
import { parseWebLlmProgress } from '../../../src/ui/state/modelLoadProgress';

describe('parseWebLlmProgress', () => {
  it('reads the shard counts and megabytes of a download', () => {
    const report = {
      progress: 0.15,
      text: 'Fetching param cache[3/20]: 120MB fetched. 15% completed, 4 secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.',
    };
    expect(parseWebLlmProgress(report)).toEqual({ progress: { phase: 'Downloading the model', done: 3, total: 20, item: '120 MB fetched' }, unit: 'shards' });
  });

  it('reads a load from the cache and the shader stage', () => {
    expect(parseWebLlmProgress({ progress: 0.5, text: 'Loading model from cache[10/20]: 1234MB loaded. 50% completed, 2 secs elapsed.' })).toEqual({
      progress: { phase: 'Loading the model from the cache', done: 10, total: 20, item: '1,234 MB loaded' },
      unit: 'shards',
    });
    expect(parseWebLlmProgress({ progress: 0.4, text: 'Loading GPU shader modules[40/100]: 40% completed, 1 secs elapsed.' })).toEqual({
      progress: { phase: 'Preparing GPU shaders', done: 40, total: 100 },
      unit: 'shader modules',
    });
  });

  it('never reports more done than the total', () => {
    expect(parseWebLlmProgress({ progress: 1, text: 'Fetching param cache[21/20]: 9MB fetched.' }).progress).toMatchObject({ done: 20, total: 20 });
  });

  it('shows the start of a download as indeterminate', () => {
    expect(parseWebLlmProgress({ progress: 0, text: 'Start to fetch params' })).toEqual({ progress: { phase: 'Downloading the model', done: 0, total: 0 }, unit: '' });
  });

  it('keeps an unknown sentence as the phase, with the fraction as a percentage when there is one', () => {
    expect(parseWebLlmProgress({ progress: 0.256, text: 'Something new' })).toEqual({ progress: { phase: 'Something new', done: 26, total: 100 }, unit: '%' });
    expect(parseWebLlmProgress({ progress: 0, text: 'Starting the in-browser engine…' })).toEqual({
      progress: { phase: 'Starting the in-browser engine…', done: 0, total: 0 },
      unit: '',
    });
    expect(parseWebLlmProgress({ progress: Number.NaN, text: '' })).toEqual({ progress: { phase: 'Loading the model', done: 0, total: 0 }, unit: '' });
    expect(parseWebLlmProgress({ progress: 7, text: 'x' }).progress).toMatchObject({ done: 100, total: 100 });
  });
});
