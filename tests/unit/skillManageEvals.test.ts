/**
 * skill_manage checks `evals/evals.json` through the engine's file rules (wired by the app's
 * skill services to the gate's validateEvalsFile): write_file and patch of that file are
 * refused with the problems listed, a valid file is written with its lint warnings, and other
 * files are not touched by the rule. Through the real app services on memory stores.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AppServices } from '../../src/app/appServices';
import { createWriteContext, type WriteOrigin } from '../../src/tools/writeContext';
import { memoryAppServices } from './helpers/memoryAppServices';
import { skillContent } from './helpers/skillTestEngine';

const opened: AppServices[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.changes.close();
});

const validFile = (skillName = 'tea') =>
  JSON.stringify(
    {
      skill_name: skillName,
      evals: [
        { id: 1, prompt: 'How long should green tea steep?', checks: [{ type: 'icontains', value: 'minute' }] },
        { id: 2, prompt: 'What water temperature suits oolong?', checks: [{ type: 'icontains', value: '°C' }] },
      ],
    },
    null,
    2,
  );

async function setup() {
  const { app } = await memoryAppServices('worker');
  opened.push(app);
  const registry = await app.tools();
  const manage = (args: Record<string, unknown>, origin: WriteOrigin = 'foreground') => registry.dispatchOutcome('skill_manage', args, createWriteContext(origin));
  expect((await manage({ action: 'create', name: 'tea', content: skillContent('tea') })).success).toBe(true);
  const read = async (path: string) => {
    const skills = await app.skills();
    const data = await skills.readSkillFile('tea', path);
    return data === null ? null : new TextDecoder().decode(data);
  };
  return { app, manage, read };
}

describe('skill_manage and evals/evals.json', () => {
  it('write_file of a valid file succeeds without warnings', async () => {
    const { manage, read } = await setup();
    const result = await manage({ action: 'write_file', name: 'tea', file_path: 'evals/evals.json', file_content: validFile() });
    expect(result).toMatchObject({ success: true });
    expect(result).not.toHaveProperty('warnings');
    expect(await read('evals/evals.json')).toBe(validFile());
  });

  it('write_file of a file that breaks the rules is refused with the problems; nothing is written', async () => {
    const { manage, read } = await setup();
    const bad = JSON.stringify({ skill_name: 'tea', evals: [{ id: 1, prompt: '', checks: [] }, { id: 1, prompt: 'Again?', checks: [] }] });
    const result = await manage({ action: 'write_file', name: 'tea', file_path: 'evals/evals.json', file_content: bad });
    expect(result).toMatchObject({ success: false, error: expect.stringContaining('evals/evals.json was not written') });
    expect(result.problems).toEqual(expect.arrayContaining([expect.stringContaining('evals[0].prompt'), expect.stringContaining('evals[1].id')]));
    expect(await read('evals/evals.json')).toBeNull();
    const unparsable = await manage({ action: 'write_file', name: 'tea', file_path: 'evals/evals.json', file_content: '{ "evals": [' });
    expect(unparsable).toMatchObject({ success: false });
  });

  it('a valid file with lint findings is written and the result carries them as warnings', async () => {
    const { manage } = await setup();
    const result = await manage({ action: 'write_file', name: 'tea', file_path: 'evals/evals.json', file_content: validFile('coffee') });
    expect(result).toMatchObject({ success: true, warnings: [expect.stringContaining("skill_name: 'coffee'")] });
  });

  it('a case naming a file the skill does not have is refused', async () => {
    const { manage } = await setup();
    const file = JSON.stringify({ skill_name: 'tea', evals: [{ id: 1, prompt: 'Summarise this.', files: ['evals/files/missing.txt'], checks: [{ type: 'icontains', value: 'tea' }] }] });
    const result = await manage({ action: 'write_file', name: 'tea', file_path: 'evals/evals.json', file_content: file });
    expect(result).toMatchObject({ success: false, error: expect.stringContaining('evals[0].files[0]') });
  });

  it('patch checks the patched text: a patch that breaks the file is refused, one that keeps it valid goes through', async () => {
    const { manage, read } = await setup();
    await manage({ action: 'write_file', name: 'tea', file_path: 'evals/evals.json', file_content: validFile() });
    const broken = await manage({ action: 'patch', name: 'tea', file_path: 'evals/evals.json', old_string: '"id": 2', new_string: '"id": 1' });
    expect(broken).toMatchObject({ success: false, problems: [expect.stringContaining('evals[1].id')] });
    expect(await read('evals/evals.json')).toBe(validFile());
    const fine = await manage({ action: 'patch', name: 'tea', file_path: 'evals/evals.json', old_string: 'suits oolong', new_string: 'suits a dark oolong' });
    expect(fine).toMatchObject({ success: true });
    expect(await read('evals/evals.json')).toContain('a dark oolong');
  });

  it('other files of the skill are not checked by the rule', async () => {
    const { manage } = await setup();
    const result = await manage({ action: 'write_file', name: 'tea', file_path: 'references/notes.json', file_content: '{ not json' });
    expect(result).toMatchObject({ success: true });
    expect(result).not.toHaveProperty('warnings');
  });
});
