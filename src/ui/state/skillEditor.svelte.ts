/**
 * One open create/edit form: the draft, its as-you-type validation, the scanner warnings
 * shown before a save, and the save itself (through `skillsLibrary.save`). A component makes
 * one per form it shows.
 */
import type { Finding } from '../../skills/scanner';
import { hasErrors, scanDraft, starterTemplate, syncFrontmatterName, validateDraft, type DraftMode } from './skillDraft';
import { skillsLibrary } from './skills.svelte';

export class SkillEditorForm {
  readonly mode: DraftMode;
  name = $state('');
  category = $state('');
  content = $state('');
  /** Errors show for a field once the user has typed in it, or for every field after a save attempt. */
  touched = $state({ name: false, category: false, content: false });
  /** Scanner findings for the text as it was when Save was pressed; null = not scanned yet. */
  findings = $state<Finding[] | null>(null);
  saveError = $state<string | null>(null);
  saving = $state(false);

  errors = $derived.by(() => validateDraft({ name: this.name, category: this.category, content: this.content }, this.mode));
  invalid = $derived(hasErrors(this.errors));
  #original: string;

  constructor(mode: DraftMode, initial: { name?: string; category?: string; content?: string } = {}) {
    this.mode = mode;
    this.name = initial.name ?? '';
    this.category = initial.category ?? '';
    this.content = initial.content ?? starterTemplate();
    this.#original = this.content;
  }

  get unchanged(): boolean {
    return this.mode === 'edit' && this.content === this.#original;
  }

  /** Shown error for a field: only after the user has touched it. */
  shownError(field: 'name' | 'category' | 'content'): string | null {
    return this.touched[field] ? this.errors[field] : null;
  }

  setName = (next: string): void => {
    this.content = syncFrontmatterName(this.content, this.name, next);
    this.name = next;
    this.touched.name = true;
    this.findings = null;
  };

  setCategory = (next: string): void => {
    this.category = next;
    this.touched.category = true;
  };

  setContent = (next: string): void => {
    this.content = next;
    this.touched.content = true;
    this.findings = null; // the warnings were about the earlier text
  };

  /**
   * Validates, then scans; findings stop the first save and are shown as warnings, and
   * `saveAnyway` goes ahead with them in view. Returns true once saved.
   */
  submit = async (options: { saveAnyway?: boolean } = {}): Promise<boolean> => {
    this.touched = { name: true, category: true, content: true };
    this.saveError = null;
    if (this.invalid) return false;
    if (this.unchanged) {
      this.saveError = 'Nothing changed yet: edit the text, or cancel.';
      return false;
    }
    if (!options.saveAnyway) {
      this.findings = scanDraft({ name: this.name, category: this.category, content: this.content });
      if (this.findings.length > 0) return false;
    }
    this.saving = true;
    try {
      const result = await skillsLibrary.save(this.mode, { name: this.name, category: this.category, content: this.content });
      if (!result.ok) this.saveError = result.error;
      return result.ok;
    } catch (error) {
      this.saveError = `Could not save: ${error instanceof Error ? error.message : String(error)}`;
      return false;
    } finally {
      this.saving = false;
    }
  };
}
