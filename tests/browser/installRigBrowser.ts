/**
 * A fresh install rig (tests/fixtures/installRig.ts) and a Chromium that maps the real host
 * names to it, per test. The rig's ports are only known once it has started, so each test
 * launches its own Chromium with them in `--host-resolver-rules`; the rig's certificate is
 * self-signed, so the context ignores certificate errors (docs/install.md, "Testing").
 */
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { chromiumLaunch } from '../../playwright.config';
import { startInstallRig, type InstallRig } from '../fixtures/installRig';

export interface RigBrowser {
  rig: InstallRig;
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

export async function openRigBrowser(baseURL: string | undefined): Promise<RigBrowser> {
  const rig = await startInstallRig({ https: true });
  const browser = await chromium.launch({ ...chromiumLaunch, args: [...chromiumLaunch.args, `--host-resolver-rules=${rig.resolverRules}`] });
  const context = await browser.newContext({ baseURL, ignoreHTTPSErrors: true, serviceWorkers: 'block' });
  return { rig, browser, context, page: await context.newPage() };
}

/** Closes what `openRigBrowser` opened; either may be missing when opening failed part-way. */
export async function closeRigBrowser(opened: { rig?: InstallRig; browser?: Browser }): Promise<void> {
  await opened.browser?.close();
  await opened.rig?.close();
}
