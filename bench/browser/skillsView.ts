/**
 * Opening a skill in the Skills view of a large library, as a user does: type its name in the
 * view's search, click its row. Shared by the benches that open skills in a library of 1,423
 * (realSizeImport.bench.ts, realSkills.bench.ts).
 */
import { untilFrame } from './knack';

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
