/**
 * Opening a skill in the Skills view of a large library, as a user does: type its name in the
 * view's search, click its row. Shared by the benches that open skills in a library of 1,423
 * (realSizeImport.bench.ts, realSkills.bench.ts).
 */
import { untilFrame } from './knack';
import { summarize } from './stats';

const searchBox = () => document.querySelector<HTMLInputElement>('[aria-label="Filter skills"] input[type="search"]');
const listButton = (name: string) =>
  [...(document.querySelector('[aria-label="Skills"]')?.querySelectorAll('button') ?? [])].find((b) => b.querySelector('.name')?.textContent === name);
const exportButton = () => [...document.querySelectorAll<HTMLButtonElement>('[aria-label="Skill actions"] button')].find((b) => b.textContent?.trim() === 'Export');
const bodyText = () => document.querySelector('[data-testid="skill-body"]')?.textContent ?? '';
const listedFiles = () => document.querySelectorAll('[aria-label="Files of this skill"] li').length;

/**
 * Shows the Skills view, as a user does to import and open skills; the returned function empties
 * its search and goes back to the view that was showing, so the benches after this one find the
 * page as they expect (the chat benches need the chat's message list).
 */
export function enterSkillsView(): () => void {
  const before = location.hash;
  location.hash = '#/skills';
  return () => {
    const box = searchBox();
    if (box && box.value !== '') {
      box.value = '';
      box.dispatchEvent(new Event('input', { bubbles: true }));
    }
    location.hash = before;
  };
}

/**
 * Finds the skill with the view's search, clicks its row, and times click → its text on screen
 * (`textShown` says when the body is the skill's) and Export usable, and click → all `files`
 * listed.
 */
export async function timedOpen(name: string, files: number, textShown: (body: string) => boolean): Promise<{ usable: number; listed: number }> {
  const box = searchBox();
  if (!box) throw new Error('the Skills view has no search box');
  box.value = name;
  box.dispatchEvent(new Event('input', { bubbles: true }));
  await untilFrame(() => listButton(name) !== undefined, `the list row of ${name}`);
  const started = performance.now();
  listButton(name)!.click();
  await untilFrame(() => document.getElementById('skill-detail-name')?.textContent === name && textShown(bodyText()) && exportButton()?.disabled === false, `the text and actions of ${name}`);
  const usable = performance.now() - started;
  await untilFrame(() => listedFiles() >= files, `the files of ${name}`);
  return { usable, listed: performance.now() - started };
}

export interface OpenTarget {
  name: string;
  files: number;
  /** Whether the body on screen is this skill's. */
  textShown: (body: string) => boolean;
}

/**
 * Opens each target right after `small` (so every open starts from another skill), in two
 * rounds: the first warms code, the second is measured.
 */
export async function timedOpens(small: OpenTarget, targets: readonly OpenTarget[]) {
  const usable: number[] = [];
  const listed: number[] = [];
  const perSkill: Record<string, { files: number; usableMs: number; listedMs: number }> = {};
  for (const round of [0, 1]) {
    for (const target of targets) {
      await timedOpen(small.name, small.files, small.textShown);
      const open = await timedOpen(target.name, target.files, target.textShown);
      if (round === 0) continue;
      usable.push(open.usable);
      listed.push(open.listed);
      perSkill[target.name] = { files: target.files, usableMs: Math.round(open.usable), listedMs: Math.round(open.listed) };
    }
  }
  return { textAndActions: summarize(usable), filesListed: summarize(listed), perSkill };
}

/** Removes the skill folders a bench imported, and their catalogue entries. */
export async function removeImported(engine: { files: { deleteTree(dir: string): Promise<unknown> }; catalog: { remove(dir: string): Promise<unknown> } }, dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    await engine.files.deleteTree(dir);
    await engine.catalog.remove(dir);
  }
}
