/**
 * What an install writes (docs/install.md, "The record"): the same applyImport as a zip, with each
 * skill's InstalledSource in its usage record; the nested skills inside it get none.
 */
import { describe, expect, it } from 'vitest';
import { lookUpLink, stampSources } from '../../../src/install/installFromLink';
import { applyImport } from '../../../src/skills/zipImport';
import { initialChoices } from '../../../src/ui/state/importReview';
import { FIXTURE_OWNER, FIXTURE_REPO, type InstallRig } from '../../fixtures/installRig';
import { createTestEngine } from '../helpers/skillTestEngine';
import { installRigPerTest } from '../helpers/installRigPerTest';

let rig: InstallRig;
installRigPerTest((current) => ({ rig } = current));

describe('installing from a link', () => {
  it('writes the plan like a zip import, with installed_from on each installed skill', async () => {
    const t = createTestEngine();
    const found = await lookUpLink(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}`, { hosts: rig.hosts, isOnline: () => true, exists: (name) => t.engine.catalog.findByName(name).length > 0 });
    const choices = initialChoices(found.plan);
    // pdf-tools ships a script: the scanner asks for a confirmation, which the user gives.
    for (const skill of found.plan.skills) choices[skill.id] = { ...choices[skill.id]!, include: true, confirmed: true, override: true };
    const sources = stampSources(found.sources, new Date('2026-12-06T06:00:00Z'));
    const outcomes = await applyImport(t.engine, found.plan, choices, { installedFrom: sources });
    expect(outcomes.filter((o) => o.status === 'imported').map((o) => o.name).sort()).toEqual(['parent', 'pdf-tools', 'skill-1', 'skill-2', 'skill-3']);
    const pdf = await t.engine.usage.get('pdf-tools');
    expect(pdf.source).toBe('import');
    expect(pdf.verification).toBe('staged');
    const pdfCandidate = found.plan.skills.find((s) => s.name === 'pdf-tools')!;
    expect(pdf.installed_from).toEqual({ ...found.sources[pdfCandidate.id], installedAt: '2026-12-06T06:00:00.000Z' });
    expect((await t.engine.usage.get('parent')).installed_from).toMatchObject({ path: 'skills/parent' });
    expect((await t.engine.usage.get('child')).installed_from).toBeNull();
    // Byte for byte, modes kept for export.
    expect(await t.engine.files.readText('skills/pdf-tools/scripts/fill.sh')).toBe('#!/bin/sh\necho filling\n');
    const entries = await t.engine.ledger.list('pdf-tools');
    expect(entries[0]!.evidence).toMatchObject({ installed_from: { kind: 'github', path: 'skills/pdf-tools', revision: rig.repo.commit }, modes: { 'scripts/fill.sh': 0o755 } });
  });
});
