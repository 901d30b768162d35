/**
 * Every model-facing tool returns a JSON string with a boolean `success`.
 * Success carries a `message`; failure carries an `error` that tells the model what to do next.
 */
export type ToolFields = Record<string, unknown>;

export interface ToolSuccess extends ToolFields {
  success: true;
}

export interface ToolFailure extends ToolFields {
  success: false;
  error: string;
}

export type ToolOutcome = ToolSuccess | ToolFailure;

export function ok(fields: ToolFields = {}): ToolSuccess {
  return { success: true, ...fields };
}

export function fail(error: string, extra: ToolFields = {}): ToolFailure {
  return { success: false, error, ...extra };
}

/** Serialises an outcome; anything that cannot be serialised becomes a failure, never a throw. */
export function toJson(outcome: ToolOutcome): string {
  try {
    return JSON.stringify(outcome);
  } catch (error) {
    return JSON.stringify({ success: false, error: `Result could not be serialised: ${String(error)}` });
  }
}

/** Human-friendly thousands separators, as in "100,000". */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
