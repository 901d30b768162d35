/**
 * A fresh install rig (tests/fixtures/installRig.ts) for every test of the calling file, closed
 * after it, and the network options that point the core at it (its local URLs as InstallHosts).
 */
import { afterEach, beforeEach } from 'vitest';
import type { InstallNetworkOptions } from '../../../src/install/installNetwork';
import { startInstallRig, type InstallRig } from '../../fixtures/installRig';

export interface RigForTest {
  rig: InstallRig;
  options: InstallNetworkOptions;
}

/** `started` hears each test's rig before the test runs (assign it to the file's variables). */
export function installRigPerTest(started: (current: RigForTest) => void): void {
  let rig: InstallRig | undefined;
  beforeEach(async () => {
    rig = await startInstallRig();
    started({ rig, options: { hosts: rig.hosts, isOnline: () => true } });
  });
  afterEach(async () => {
    await rig?.close();
  });
}
