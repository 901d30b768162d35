/**
 * Install from a link, then Check for updates and Update, end to end in the core against the
 * install rig's real HTTP servers (the GitHub hosts are the one stand-in, serving a repository
 * built by real git): the installed hash, modes included, must match what the check computes, so
 * an untouched skill with an executable script reads "up to date".
 */
import { describe, expect, it } from 'vitest';
import { lookUpLink, stampSources } from '../../../src/install/installFromLink';
import { createReadUpstream } from '../../../src/install/upstream';
import type { InstallNetworkOptions } from '../../../src/install/installNetwork';
import { checkForUpdates, commitUpdate, prepareUpdate } from '../../../src/install/update';
import { applyImport } from '../../../src/skills/zipImport';
import { FIXTURE_OWNER, FIXTURE_REPO, type InstallRig } from '../../fixtures/installRig';
import { createTestEngine } from '../helpers/skillTestEngine';
import { installRigPerTest } from '../helpers/installRigPerTest';

let rig: InstallRig;
let options: InstallNetworkOptions;
installRigPerTest((current) => ({ rig, options } = current));

describe('updates of a skill installed from GitHub', () => {
  it('reads up to date after install, edited here after an edit, and merges an upstream change into the edit', async () => {
    const t = createTestEngine();
    const found = await lookUpLink(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}/tree/main/skills/pdf-tools`, options);
    const [candidate] = found.plan.skills;
    await applyImport(t.engine, found.plan, { [candidate!.id]: { include: true } }, { installedFrom: stampSources(found.sources, new Date()) });
    const readUpstream = createReadUpstream(options);
    const status = async () => (await checkForUpdates(t.engine, readUpstream)).skills.find((skill) => skill.name === 'pdf-tools')!;

    expect((await status()).status).toBe('up to date');

    const dir = t.engine.catalog.findByName('pdf-tools')[0]!.dir;
    const original = (await t.files.readText(`${dir}/SKILL.md`))!;
    const edited = original.replace('# PDF tools', '# PDF tools\n\nAlways keep a copy of the original form.');
    expect((await t.manage({ action: 'edit', name: 'pdf-tools', content: edited }, t.context('user'))).success).toBe(true);
    expect((await status()).status).toBe('edited here');

    rig.repo.commitChange('skills/pdf-tools/references/guide.md', '# Guide\n\nFields first, then merge, then check the page count.\n');
    const state = await status();
    expect(state.status).toBe('edited here, update available');

    const prepared = await prepareUpdate(t.engine, 'pdf-tools', state.upstream!);
    if ('success' in prepared) throw new Error(prepared.error);
    expect(prepared).toMatchObject({ kind: 'merge', baseKnown: true });
    expect(prepared.merge!.conflicts).toEqual([]);
    const outcome = await commitUpdate(t.engine, prepared);
    expect(outcome.success).toBe(true);
    expect(await t.files.readText(`${dir}/SKILL.md`)).toBe(edited);
    expect(await t.files.readText(`${dir}/references/guide.md`)).toBe('# Guide\n\nFields first, then merge, then check the page count.\n');
    expect((await t.engine.usage.get('pdf-tools')).installed_from).toMatchObject({ revision: rig.repo.commit });
    expect((await status()).status).toBe('edited here');
  });
});
