/**
 * The layering of Knack's code, checked by dependency-cruiser (`npm run lint`). Imports go
 * downwards only:
 *
 *   5  ui        src/ui, src/main.ts          may import everything below
 *      workers   workers/                     may import app and below, never ui
 *   4  app       src/app                      the composition root
 *   3  agent, review, gate, install, sync
 *   2  skills, memory, sessions, curator
 *   1  storage, providers, tools
 *
 * Within a layer (what sideways imports are allowed):
 *   1  storage and providers import nothing of ours; tools may import storage (record types).
 *   2  skills is the base of its layer: memory, sessions and curator may import skills (the
 *      scanner's patterns, pending writes, the catalogue), skills imports none of them, and
 *      memory, sessions and curator do not import each other.
 *   3  agent is the base of its layer: review and gate may import agent, agent imports neither;
 *      review may import gate (gate runs are a job of the review worker), gate never imports review.
 *
 * The core (everything outside src/ui and src/main.ts) is plain TypeScript: it never imports
 * `svelte` nor a `.svelte` / `.svelte.ts` module, so it runs the same in a worker and under Vitest.
 *
 * Type-only imports count (`tsPreCompilationDeps`): a type from a higher layer is still an
 * upward dependency.
 */

const LAYER_2 = '^src/(skills|memory|sessions|curator)/';
const LAYER_3 = '^src/(agent|review|gate|install|sync)/';
const APP = '^src/app/';
const UI = '^src/ui/|^src/main\\.ts$';
const WORKERS = '^workers/';

// Layer 1 is ^src/(storage|providers|tools)/; each of the three has its own rule below.
const ABOVE_1 = [LAYER_2, LAYER_3, APP, UI, WORKERS].join('|');
const ABOVE_2 = [LAYER_3, APP, UI, WORKERS].join('|');
const ABOVE_3 = [APP, UI, WORKERS].join('|');
const ABOVE_APP = [UI, WORKERS].join('|');

/**
 * TEMPORARY exceptions: known upward imports that other branches of issue 8 remove. The lead
 * deletes each line once its branch is merged; nothing new goes here.
 */
const TEMPORARY_EXCEPTIONS = [
];

const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

const layerRules = [
  rule('storage-imports-nothing-of-ours', 'Storage is the floor: it knows no other module of ours.', { path: '^src/storage/' }, { path: '^src/(?!storage/)|^workers/' }),
  rule('providers-import-nothing-of-ours', 'Providers speak to models only: no storage, tools or anything above.', { path: '^src/providers/' }, { path: '^src/(?!providers/)|^workers/' }),
  rule('tools-stay-in-layer-1', 'Tools may use storage types, nothing above layer 1 and not providers.', { path: '^src/tools/' }, { path: `${ABOVE_1}|^src/providers/` }),
  rule('layer-2-not-upwards', 'skills, memory, sessions, curator never import agent, review, gate, app or ui.', { path: LAYER_2 }, { path: ABOVE_2 }),
  rule('skills-is-the-base-of-layer-2', 'memory, sessions and curator may import skills; skills imports none of them.', { path: '^src/skills/' }, { path: '^src/(memory|sessions|curator)/' }),
  rule(
    'layer-2-siblings-independent',
    'memory, sessions and curator do not import each other.',
    { path: '^src/(memory|sessions|curator)/' },
    { path: '^src/(memory|sessions|curator)/', pathNot: '^src/$1/' },
  ),
  rule('layer-3-not-upwards', 'agent, review and gate never import app, ui or the workers.', { path: LAYER_3 }, { path: ABOVE_3 }),
  rule('agent-is-the-base-of-layer-3', 'review, gate, install and sync may import agent; agent imports none of them.', { path: '^src/agent/' }, { path: '^src/(review|gate|install|sync)/' }),
  rule('gate-does-not-import-review', 'The review worker runs gate jobs, so review may import gate but not the reverse.', { path: '^src/gate/' }, { path: '^src/review/' }),
  rule('app-not-upwards', 'The composition root never imports ui or the workers.', { path: APP }, { path: ABOVE_APP }),
  rule('workers-not-ui', 'Workers may import app and below, never the ui.', { path: WORKERS }, { path: UI }),
  rule(
    'core-without-svelte',
    'Outside src/ui (and src/main.ts) the code is plain TypeScript: no svelte, no .svelte modules.',
    { path: '^(src|workers)/', pathNot: UI },
    { path: '(^|/)node_modules/svelte/|\\.svelte(\\.(ts|js))?$' },
  ),
];

const exactly = (file) => `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

/** A rule with the temporary exceptions carved out: the excepted file keeps every other check. */
function withExceptions(base) {
  const applies = (exception) => new RegExp(base.from.path).test(exception.from) && new RegExp(base.to.path).test(exception.to);
  const touched = TEMPORARY_EXCEPTIONS.filter(applies);
  if (touched.length === 0) return [base];
  const orNot = (pathNot, extra) => (pathNot ? `${pathNot}|${extra}` : extra);
  return [
    { ...base, from: { ...base.from, pathNot: orNot(base.from.pathNot, touched.map((e) => exactly(e.from)).join('|')) } },
    ...touched.map((exception) => ({
      ...base,
      name: `${base.name} (temporary exception: ${exception.from})`,
      from: { path: exactly(exception.from) },
      to: { ...base.to, pathNot: orNot(base.to.pathNot, exactly(exception.to)) },
    })),
  ];
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules.flatMap(withExceptions),
    {
      name: 'no-circular',
      comment: 'A cycle between modules means one of them is in the wrong place.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|workers|node_modules)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'svelte', 'browser', 'default'],
      extensions: ['.ts', '.js', '.svelte', '.json'],
    },
    moduleSystems: ['es6'],
  },
};
