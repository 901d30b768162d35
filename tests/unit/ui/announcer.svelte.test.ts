/**
 * The polite live region's text (src/ui/state/announcer.svelte.ts), run as a real rune
 * module: an effect subscribed to `announcer.message` sees each change the way the live
 * region in the page would. Fake timers stand in for the one-task delay.
 */
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { announcer } from '../../../src/ui/state/announcer.svelte';

/** Every value of `announcer.message` an effect observes until `stop` is called. */
function watchMessages(): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const stop = $effect.root(() => {
    $effect(() => {
      seen.push(announcer.message);
    });
  });
  flushSync();
  return { seen, stop };
}

describe('announcer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // The announcer is a module singleton: start each test from a settled, empty message.
    announcer.say('');
    vi.runAllTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('clears first and sets the sentence a task later, so a repeated sentence is announced again', () => {
    const { seen, stop } = watchMessages();
    try {
      announcer.say('Reply finished.');
      flushSync();
      expect(announcer.message).toBe('');
      vi.runAllTimers();
      flushSync();
      expect(announcer.message).toBe('Reply finished.');

      announcer.say('Reply finished.');
      flushSync();
      expect(announcer.message).toBe('');
      vi.runAllTimers();
      flushSync();
      expect(seen).toEqual(['', 'Reply finished.', '', 'Reply finished.']);
    } finally {
      stop();
    }
  });

  it('a newer sentence replaces one that was not announced yet', () => {
    const { seen, stop } = watchMessages();
    try {
      announcer.say('Reply started.');
      announcer.say('Reply stopped.');
      vi.runAllTimers();
      flushSync();
      expect(announcer.message).toBe('Reply stopped.');
      expect(seen).toEqual(['', 'Reply stopped.']);
    } finally {
      stop();
    }
  });
});
