/**
 * Requests a GitHub sync costs (docs/sync.md, "GitHub repository"), counted on the wire against
 * the one GitHub stand-in (tests/fixtures/githubStandIn.ts, a real git repository) with a library
 * of 1,423 skills in a `skills/` folder, each with a `.knack/` record. The transport's calls are
 * made in the order the sync core makes them (read the head; stop if it is the last synced head
 * and nothing changed here; else read the listing, read the changed skills' files, commit, read
 * the listing at the new head). Each scenario starts from a fresh transport, as after a reload.
 * Request counts do not depend on where the code runs, so this runs in Node.
 */
import { performance } from 'node:perf_hooks';
import { GitHubTransport } from '../../src/sync/githubTransport';
import type { RemoteChange } from '../../src/sync/transport';
import { fetchThroughStandIn, startGitHubStandIn, type GitHubStandIn } from '../../tests/fixtures/githubStandIn';

const SKILLS = 1_423;
const FOLDER = 'skills';

function skillText(i: number, note = ''): string {
  return `---\nname: synced-${i}\ndescription: Use when checking synced project ${i}.\n---\n\n# Synced ${i}\n\n1. Check project ${i}.\n${note}`;
}

interface Counted {
  transport: GitHubTransport;
  requests: { method: string; path: string; bytes: number }[];
}

function counted(standIn: GitHubStandIn): Counted {
  const through = fetchThroughStandIn(standIn);
  const requests: Counted['requests'] = [];
  const transport = new GitHubTransport(
    { owner: standIn.owner, repo: standIn.repo, branch: 'main', folder: FOLDER, token: standIn.token },
    {
      fetch: async (input, init) => {
        const response = await through(input, init);
        const bytes = (await response.clone().arrayBuffer()).byteLength;
        requests.push({ method: init?.method ?? 'GET', path: new URL(String(input)).pathname, bytes });
        return response;
      },
    },
  );
  return { transport, requests };
}

function summary(scenario: Counted, started: number) {
  return {
    requests: scenario.requests.length,
    bytesReceived: scenario.requests.reduce((sum, request) => sum + request.bytes, 0),
    calls: scenario.requests.map((request) => `${request.method} ${request.path.replace(/^\/repos\/[^/]+\/[^/]+/, '')}`),
    ms: Math.round(performance.now() - started),
  };
}

async function githubSyncBench() {
  const standIn = await startGitHubStandIn();
  try {
    const files: Record<string, string> = {};
    for (let i = 0; i < SKILLS; i += 1) {
      files[`${FOLDER}/synced-${i}/SKILL.md`] = skillText(i);
      files[`${FOLDER}/.knack/skills/synced-${i}.json`] = `{"name":"synced-${i}","verdicts":[]}\n`;
    }
    let lastHead = await standIn.seed('main', files);

    // Nothing changed on either side: the head is the one last synced.
    let started = performance.now();
    const idle = counted(standIn);
    const idleHead = await idle.transport.readHead();
    if (idleHead !== lastHead) throw new Error('the stand-in moved');
    const nothingChanged = summary(idle, started);

    // One skill changed on another device: read the head, the listing, that skill's files.
    lastHead = await standIn.push('main', { [`${FOLDER}/synced-7/SKILL.md`]: skillText(7, 'Edited on the phone.\n') });
    started = performance.now();
    const incoming = counted(standIn);
    const head = (await incoming.transport.readHead())!;
    const tree = await incoming.transport.readTree(head);
    const changed = [...tree.entries.keys()].filter((path) => path.startsWith('synced-7/') || path === '.knack/skills/synced-7.json');
    await incoming.transport.readFiles(head, changed);
    const oneSkillChangedThere = summary(incoming, started);

    // One skill changed here: read the head (unchanged), the listing, commit, the listing after.
    started = performance.now();
    const outgoing = counted(standIn);
    const base = (await outgoing.transport.readHead())!;
    await outgoing.transport.readTree(base);
    const change: RemoteChange = {
      expectedHead: base,
      writes: new Map([
        ['synced-9/SKILL.md', { bytes: new TextEncoder().encode(skillText(9, 'Learned on the laptop.\n')), mode: 0o644 }],
        ['.knack/skills/synced-9.json', { bytes: new TextEncoder().encode('{"name":"synced-9","verdicts":[{"model":"qwen3:8b"}]}\n'), mode: 0o644 }],
      ]),
      deletes: [],
      message: 'Knack sync: synced-9',
    };
    const newHead = await outgoing.transport.commit(change);
    await outgoing.transport.readTree(newHead);
    const oneSkillChangedHere = summary(outgoing, started);

    return { skills: SKILLS, nothingChanged, oneSkillChangedThere, oneSkillChangedHere };
  } finally {
    await standIn.close();
  }
}

export const results = await githubSyncBench();
