/**
 * Editing state of one open case editor: the draft cases, which one is open, which have
 * been touched, and the "try these checks" answer per case. The editor component makes one;
 * the validator and the check runner are passed in, so no gate rule is repeated here.
 */
import type { Check, EvalCase, EvalsFile } from '../../../gate/types';
import { cleanCase, newCase, newCheck, normaliseErrorKeys } from './caseDraft';

export type ValidateCase = (draft: EvalCase) => Record<string, string>;
export type TryChecks = (answer: string, checks: NonNullable<EvalCase['checks']>) => Promise<{ pass: boolean; reason?: string }[]>;

export interface CaseRow {
  /** Stable key for the list and the ids of the inputs; never saved. */
  key: number;
  data: EvalCase;
  touched: boolean;
  /** Answer pasted for "Try these checks", and the last results. */
  tryAnswer: string;
  tryResults: { pass: boolean; reason?: string }[] | null;
  trying: boolean;
  tryError: string | null;
}

export class CaseEditorState {
  rows = $state<CaseRow[]>([]);
  openKey = $state<number | null>(null);
  /** Key of the case waiting for its delete to be confirmed. */
  confirmDeleteKey = $state<number | null>(null);
  submitted = $state(false);
  #nextKey = 1;
  #file: EvalsFile;
  #validate: () => ValidateCase;

  /**
   * `added` is a case not saved yet (one added from a chat, with drafted checks): it comes last,
   * open, and counts as edited, so its problems show at once and the save writes it.
   */
  constructor(file: EvalsFile | null, validate: () => ValidateCase, added: EvalCase | null = null) {
    // A private plain copy (the caller may pass a $state proxy, which structuredClone refuses):
    // the caller's record must not change while the user types.
    this.#file = $state.snapshot(file ?? { evals: [] }) as EvalsFile;
    this.#validate = validate;
    this.rows = this.#file.evals.map((data) => this.#row(data, false));
    if (added) {
      const row = this.#row($state.snapshot(added) as EvalCase, true);
      this.rows.push(row);
      this.openKey = row.key;
    }
  }

  #row(data: EvalCase, touched: boolean): CaseRow {
    return { key: this.#nextKey++, data, touched, tryAnswer: '', tryResults: null, trying: false, tryError: null };
  }

  errorsOf(row: CaseRow): Record<string, string> {
    return normaliseErrorKeys(this.#validate()(cleanCase($state.snapshot(row.data) as EvalCase)));
  }

  /** Errors shown for a case: after the user typed in it, or for every case after a save attempt. */
  shownErrorsOf(row: CaseRow): Record<string, string> {
    return row.touched || this.submitted ? this.errorsOf(row) : {};
  }

  add = (): void => {
    // A timestamp string for the new case, not reactive state: a plain Date is right here.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    const row = this.#row(newCase(this.rows.map((item) => item.data), new Date().toISOString()), false);
    this.rows.push(row);
    this.openKey = row.key;
  };

  toggle = (key: number): void => {
    this.openKey = this.openKey === key ? null : key;
  };

  touch(row: CaseRow): void {
    row.touched = true;
    row.tryResults = null; // the results were for the checks as they were
  }

  setField(row: CaseRow, field: 'id' | 'prompt' | 'expected_output' | 'expectations' | 'assertions', value: unknown): void {
    (row.data as Record<string, unknown>)[field] = value;
    this.touch(row);
  }

  setCheck(row: CaseRow, index: number, check: Check): void {
    const checks = [...(row.data.checks ?? [])];
    checks[index] = check;
    row.data.checks = checks;
    this.touch(row);
  }

  addCheck(row: CaseRow): void {
    row.data.checks = [...(row.data.checks ?? []), newCheck()];
    this.touch(row);
  }

  removeCheck(row: CaseRow, index: number): void {
    row.data.checks = (row.data.checks ?? []).filter((_, position) => position !== index);
    this.touch(row);
  }

  remove = (key: number): void => {
    this.rows = this.rows.filter((row) => row.key !== key);
    if (this.openKey === key) this.openKey = null;
    this.confirmDeleteKey = null;
  };

  setTryAnswer(row: CaseRow, answer: string): void {
    row.tryAnswer = answer;
    row.tryResults = null;
  }

  async tryChecks(row: CaseRow, run: TryChecks): Promise<void> {
    const checks = cleanCase($state.snapshot(row.data) as EvalCase).checks ?? [];
    row.trying = true;
    row.tryError = null;
    try {
      row.tryResults = await run(row.tryAnswer, checks);
    } catch (error) {
      row.tryResults = null;
      row.tryError = error instanceof Error ? error.message : String(error);
    } finally {
      row.trying = false;
    }
  }

  /** The first case with errors (opened so the user sees them), or null when all are valid. */
  firstInvalid(): CaseRow | null {
    this.submitted = true;
    const invalid = this.rows.find((row) => Object.keys(this.errorsOf(row)).length > 0) ?? null;
    if (invalid) this.openKey = invalid.key;
    return invalid;
  }

  /** The file to save: the original's other fields kept, edited cases cleaned, untouched ones as they were. */
  result(): EvalsFile {
    return {
      ...this.#file,
      evals: this.rows.map((row) => {
        const data = $state.snapshot(row.data) as EvalCase;
        return row.touched ? cleanCase(data) : data;
      }),
    };
  }
}
