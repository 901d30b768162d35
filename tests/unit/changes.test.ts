import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFeed, type StorageChange } from '../../src/storage/changes';

const feeds: ChangeFeed[] = [];
function feed(name: string): ChangeFeed {
  const created = new ChangeFeed(name);
  feeds.push(created);
  return created;
}
afterEach(() => {
  while (feeds.length) feeds.pop()!.close();
});

function nextChange(target: ChangeFeed): Promise<StorageChange> {
  return new Promise((resolve) => {
    const stop = target.subscribe((change) => {
      stop();
      resolve(change);
    });
  });
}

describe('ChangeFeed', () => {
  it('delivers to another feed on the same channel and to its own subscribers', async () => {
    const channel = `test-${crypto.randomUUID()}`;
    const [tabA, tabB] = [feed(channel), feed(channel)];
    const seenByB = nextChange(tabB);
    const seenByA = nextChange(tabA);
    tabA.publish({ type: 'skill-changed', name: 'git-commit' });
    expect(await seenByB).toEqual({ type: 'skill-changed', name: 'git-commit' });
    expect(await seenByA).toEqual({ type: 'skill-changed', name: 'git-commit' });
  });

  it('stops delivering after unsubscribe and keeps going when a listener throws', async () => {
    const only = feed(`test-${crypto.randomUUID()}`);
    const received: string[] = [];
    const stop = only.subscribe((c) => received.push(c.type));
    only.subscribe(() => {
      throw new Error('listener bug');
    });
    const originalError = console.error;
    console.error = () => undefined;
    try {
      // Each wait is for a listener subscribed after the throwing one: it hears a change only
      // if delivery went on past the throw, and only after every earlier listener had its turn.
      const first = nextChange(only);
      only.publish({ type: 'memory-changed', target: 'user' });
      await first;
      stop();
      const second = nextChange(only);
      only.publish({ type: 'settings-changed' });
      await second;
    } finally {
      console.error = originalError;
    }
    expect(received).toEqual(['memory-changed']);
  });
});
