#!/usr/bin/env node
// `npm run bench` (after `vite build`): measures SPEC §17 figures and prints ONE JSON object
// on stdout. Everything else goes to stderr. Benchmarks never fail the test suite: a bench
// that errors shows up as `{ "error": "…" }` in the JSON.
//
// Two kinds of bench (see bench/README.md):
//   - Node benches (bench/node/*.mjs, listed in NODE_BENCHES below) read the build output.
//   - In-page benches (bench/browser/*.bench.ts, plus bench/core/textBench.ts) run inside
//     the built app in headless Debian Chromium. Node 20 can't import TypeScript, so Vite
//     bundles bench/browser/entry.ts into one IIFE in memory, and the runner evaluates it in
//     the app page, which publishes `globalThis.knackBench`. The benches therefore run where
//     the budgets are defined: in Chromium, on the real OPFS and IndexedDB.
//
// Environment: KNACK_OUTDIR (default dist), KNACK_PORT (default 4176, apart from tests'
// 4173), KNACK_BENCH (comma-separated bench names to run; default all),
// KNACK_WAIT_MS (how long to wait for globalThis.knack; default 20000),
// KNACK_BENCH_TIMEOUT_MS (per in-page bench; default 120000),
// KNACK_BENCH_PROFILE (a folder: each in-page bench also writes `<name>.cpuprofile` there, a
// Chromium CPU profile of the page taken over the DevTools protocol; open it in DevTools).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview, runnerImport } from 'vite';
import { bundleForPage } from '../tests/fixtures/pageBundle.mjs';
import { chromium } from '@playwright/test';
import { checkBudgets } from './budgets.mjs';
import { initialJsGzip } from './node/initialJs.mjs';
import { offlineColdStart } from './node/offlineColdStart.mjs';
import { syncGit } from './node/syncGit.mjs';
import { prepareRealSkills } from './node/realSkills.mjs';

// stdout carries only the JSON. Vite, Playwright and stray console.log calls all go to stderr.
const writeStdout = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => process.stderr.write(...args);
console.log = console.info = console.debug = (...args) => console.error(...args);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.resolve(root, process.env.KNACK_OUTDIR ?? 'dist');
const port = Number(process.env.KNACK_PORT ?? 4176);
const only = process.env.KNACK_BENCH ? new Set(process.env.KNACK_BENCH.split(',').map((name) => name.trim())) : null;
const knackTimeoutMs = Number(process.env.KNACK_WAIT_MS ?? 20_000);
const benchTimeoutMs = Number(process.env.KNACK_BENCH_TIMEOUT_MS ?? 120_000);
// Benches that do a whole library's work get more room by default (KNACK_BENCH_TIMEOUT_MS still
// raises every limit): the real-size import generates, reviews and writes 1,423 skills, then opens them.
const LONG_BENCHES = { realSizeImport: 900_000, realSkills: 900_000 };
const timeoutFor = (name) => Math.max(benchTimeoutMs, LONG_BENCHES[name] ?? 0);
const profileDir = process.env.KNACK_BENCH_PROFILE ? path.resolve(process.env.KNACK_BENCH_PROFILE) : null;

/** Node benches: each returns an object whose keys are merged into the results. */
const NODE_BENCHES = [
  { name: 'initialJs', run: () => initialJsGzip(outDir) },
  // TypeScript, and Node-only (the real tokenizer is a dev dependency): loaded through Vite's runner.
  {
    name: 'tokenEstimate',
    run: async () => (await runnerImport(path.join(root, 'bench/node/tokenEstimate.ts'), { configFile: false, logLevel: 'silent' })).module.results,
  },
  {
    name: 'githubSync',
    run: async () => ({ githubSync: (await runnerImport(path.join(root, 'bench/node/githubSync.ts'), { configFile: false, logLevel: 'silent' })).module.results }),
  },
  {
    name: 'contextBudget',
    run: async () => (await runnerImport(path.join(root, 'bench/node/contextBudget.ts'), { configFile: false, logLevel: 'silent' })).module.results,
  },
];

/**
 * Benches that drive the browser themselves, for what an in-page bench can't control: their
 * own context (service workers allowed), the network, reloads. Each gets the browser and the
 * app's URL, and its result lands under its name.
 */
const RUNNER_BENCHES = [
  { name: 'offlineColdStart', run: (browser, baseUrl) => offlineColdStart(browser, baseUrl) },
  { name: 'syncGit', run: (browser, baseUrl) => syncGit(browser, baseUrl) },
  // Its own Chromium: the rig's hosts are mapped at launch (docs/install.md, "Testing").
  {
    name: 'install',
    run: async (_browser, baseUrl) => (await runnerImport(path.join(root, 'bench/node/installBench.ts'), { configFile: false, logLevel: 'silent' })).module.runInstallBench(baseUrl),
  },
];

const log = (...args) => console.error('[bench]', ...args);
const selected = (name) => !only || only.has(name);

function errorMessage(error) {
  // Playwright prefixes page errors ("page.evaluate: Error: …") and appends the page stack.
  const first = String(error?.message ?? error).split('\n')[0];
  return first.replace(/^page\.evaluate:\s*/, '').replace(/^Error:\s*/, '');
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function bundleBrowserBenches() {
  return bundleForPage({ root, entry: path.join(root, 'bench/browser/entry.ts'), name: 'knackBenchBundle' });
}

async function runBrowserBenches(results) {
  const { module: playwrightConfig } = await runnerImport(path.join(root, 'playwright.config.ts'), {
    configFile: false,
    logLevel: 'silent',
  });
  const bundle = await bundleBrowserBenches();
  // A scripted model for benches that need one (review.bench.ts, gate.bench.ts); see bench/node/benchModelServer.ts.
  const { module: benchModel } = await runnerImport(path.join(root, 'bench/node/benchModelServer.ts'), { configFile: false, logLevel: 'silent' });
  const gateReplayDelayMs = benchModel.GATE_REPLY_DELAY_MS;
  const modelServer = await benchModel.startBenchModelServer({ gateReplayDelayMs });

  const server = await preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { port, strictPort: true, host: '127.0.0.1', open: false },
  });
  let browser;
  try {
    browser = await chromium.launch({ ...playwrightConfig.chromiumLaunch, headless: true });
    results.meta.chromium = browser.version();
    // Service workers would cache and intercept; benches measure the app's own storage path.
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    page.on('pageerror', (error) => log('page error:', error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') log(`page ${message.type()}:`, message.text());
    });
    const realSkills = await serveRealSkills(page);
    await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'load' });
    // Evaluated through the DevTools protocol, so the app's CSP (script-src 'self') allows it.
    await page.evaluate(bundle);
    await page.evaluate(([url, delayMs]) => {
      globalThis.knackBenchModelUrl = url;
      // gate.bench.ts subtracts the model's own latency (this fixed delay per replay) from its run.
      globalThis.knackBenchGateDelayMs = delayMs;
    }, [modelServer.baseUrl, gateReplayDelayMs]);
    await page.evaluate((tarballs) => {
      globalThis.knackBenchRealSkills = tarballs;
    }, realSkills);
    const names = await page.evaluate(() => globalThis.knackBench.names());
    const cdp = profileDir ? await context.newCDPSession(page) : null;
    if (cdp) {
      mkdirSync(profileDir, { recursive: true });
      await cdp.send('Profiler.enable');
    }
    for (const name of names.filter(selected)) {
      const started = performance.now();
      if (cdp) await cdp.send('Profiler.start');
      try {
        results[name] = await withTimeout(
          page.evaluate(([benchName, options]) => globalThis.knackBench.run(benchName, options), [name, { knackTimeoutMs }]),
          timeoutFor(name),
          `bench ${name}`,
        );
      } catch (error) {
        results[name] = { error: errorMessage(error) };
      }
      if (cdp) {
        const { profile } = await cdp.send('Profiler.stop');
        writeFileSync(path.join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
      }
      log(`${name}: ${Math.round(performance.now() - started)} ms`, JSON.stringify(results[name]));
    }
    await context.close();
    for (const bench of RUNNER_BENCHES.filter((bench) => selected(bench.name))) {
      const started = performance.now();
      try {
        results[bench.name] = await withTimeout(bench.run(browser, `http://127.0.0.1:${port}/`), timeoutFor(bench.name), `bench ${bench.name}`);
      } catch (error) {
        results[bench.name] = { error: errorMessage(error) };
      }
      log(`${bench.name}: ${Math.round(performance.now() - started)} ms`, JSON.stringify(results[bench.name]));
    }
  } finally {
    await browser?.close();
    await server.close();
    await modelServer.close();
  }
}

/**
 * The real public skills of bench/node/realSkills.mjs, fetched with `npm pack` when the
 * `realSkills` bench is selected and served on the app's own origin (its CSP allows only
 * 'self'): the in-page bench reads `globalThis.knackBenchRealSkills`, a list of URLs, or the
 * reason there is none.
 */
async function serveRealSkills(page) {
  if (!selected('realSkills')) return { error: 'not selected' };
  const cacheDir = path.join(root, 'node_modules/.cache/knack-real-skills');
  try {
    const tarballs = await prepareRealSkills(cacheDir);
    await page.route('**/__bench/real-skills/*', (route) => {
      const file = path.join(cacheDir, path.basename(new URL(route.request().url()).pathname));
      return route.fulfill({ status: 200, contentType: 'application/gzip', body: readFileSync(file) });
    });
    return tarballs.map(({ spec, file }) => ({ spec, url: `/__bench/real-skills/${file}` }));
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

/**
 * bench/core/textBench.ts is pure computation, so it normally runs in the page with the
 * rest. If it can't run there (say it reaches for a Node API), run it in Node through
 * Vite's module runner rather than lose the figures; meta.textBenchRanIn says where it ran.
 */
async function textBenchInNodeIfNeeded(results) {
  const file = path.join(root, 'bench/core/textBench.ts');
  if (!selected('text') || !existsSync(file)) return;
  if (results.text && !results.text.error) {
    results.meta.textBenchRanIn = 'chromium';
    return;
  }
  const browserError = results.text?.error;
  try {
    const { module } = await runnerImport(file, { configFile: false, logLevel: 'silent' });
    results.text = await module.benchText();
    results.meta.textBenchRanIn = 'node';
    if (browserError) results.meta.textBenchBrowserError = browserError;
  } catch (error) {
    results.text = { error: errorMessage(error), ...(browserError ? { browserError } : {}) };
  }
}

async function main() {
  const results = { meta: { at: new Date().toISOString(), node: process.version, outDir: path.relative(root, outDir) || '.' } };
  let failed = false;
  for (const bench of NODE_BENCHES.filter((bench) => selected(bench.name))) {
    try {
      Object.assign(results, await bench.run());
    } catch (error) {
      results[bench.name] = { error: errorMessage(error) };
    }
  }
  try {
    await runBrowserBenches(results);
  } catch (error) {
    // The harness itself broke (no build, no Chromium, port taken): say so in the JSON too.
    log(error?.stack ?? error);
    results.harnessError = errorMessage(error);
    failed = true;
  }
  await textBenchInNodeIfNeeded(results);
  results.budgets = checkBudgets(results);
  writeStdout(`${JSON.stringify(results)}\n`);
  process.exitCode = failed ? 1 : 0;
}

await main();
