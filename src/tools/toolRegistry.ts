import { fail, toJson, type ToolOutcome } from './toolResult';
import type { WriteContext } from './writeContext';

/**
 * The tools the model sees: a JSON schema for providers and one `run` each. `dispatchToolCall`
 * is the only way the agent loops call a tool, so every call — unknown names, broken JSON,
 * wrong types, a tool that throws — ends as a JSON string with a boolean `success`.
 */
export type JsonSchemaType = 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object';

export interface ParameterSchema {
  type: JsonSchemaType;
  description: string;
  enum?: readonly string[];
  items?: ParameterSchema | { type: JsonSchemaType; properties?: Record<string, ParameterSchema>; required?: string[] };
  properties?: Record<string, ParameterSchema>;
  required?: string[];
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, ParameterSchema>; required: string[] };
  run(args: Record<string, unknown>, context: WriteContext): Promise<ToolOutcome>;
}

/** The OpenAI `tools` entry for a definition. */
export function toOpenAiTool(tool: ToolDefinition): { type: 'function'; function: { name: string; description: string; parameters: unknown } } {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function typeOf(value: unknown): JsonSchemaType | 'null' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonSchemaType;
}

/** Checks required keys and top-level types; the tools do the rest of the validation. */
export function checkArguments(tool: ToolDefinition, args: Record<string, unknown>): string | null {
  for (const key of tool.parameters.required) {
    if (args[key] === undefined || args[key] === null) return `Missing required argument '${key}' for ${tool.name}.`;
  }
  for (const [key, value] of Object.entries(args)) {
    const schema = tool.parameters.properties[key];
    if (!schema || value === null || value === undefined) continue;
    const actual = typeOf(value);
    const matches = actual === schema.type || (schema.type === 'number' && actual === 'integer');
    // Enum values are left to the tool, whose message says what to use instead.
    if (!matches) return `Argument '${key}' of ${tool.name} must be ${schema.type === 'integer' ? 'an' : 'a'} ${schema.type}, got ${actual}.`;
  }
  return null;
}

/** Parses the model's argument text; models sometimes send "" for no arguments. */
export function parseArguments(raw: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return { ok: true, args: raw as Record<string, unknown> };
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return { ok: true, args: {} };
  if (typeof raw !== 'string') return { ok: false, error: 'Tool arguments must be a JSON object.' };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { ok: true, args: parsed as Record<string, unknown> };
    return { ok: false, error: 'Tool arguments must be a JSON object, e.g. {"name": "my-skill"}.' };
  } catch (error) {
    return { ok: false, error: `Tool arguments are not valid JSON (${(error as Error).message}). Send one JSON object and retry.` };
  }
}

export class ToolRegistry {
  private tools = new Map<string, ToolDefinition>();

  constructor(definitions: ToolDefinition[] = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: ToolDefinition): void {
    this.tools.set(definition.name, definition);
  }

  /** Takes a tool away (a forged tool switched off, deleted or no longer proven). */
  unregister(name: string): void {
    this.tools.delete(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  definitions(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  /** A registry with only some tools (the review agent gets four). */
  subset(names: string[]): ToolRegistry {
    return new ToolRegistry(names.map((n) => this.tools.get(n)).filter((t): t is ToolDefinition => !!t));
  }

  async dispatch(name: string, rawArguments: unknown, context: WriteContext): Promise<string> {
    return toJson(await this.dispatchOutcome(name, rawArguments, context));
  }

  async dispatchOutcome(name: string, rawArguments: unknown, context: WriteContext): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    if (!tool) {
      return fail(`Unknown tool '${name}'. Available tools: ${this.names().join(', ') || 'none'}.`);
    }
    const parsed = parseArguments(rawArguments);
    if (!parsed.ok) return fail(parsed.error);
    const problem = checkArguments(tool, parsed.args);
    if (problem) return fail(problem);
    try {
      return await tool.run(parsed.args, context);
    } catch (error) {
      const err = error as Error;
      const message = err?.message ?? String(error);
      return fail(`${name} failed: ${message}. Nothing else was changed; retry, or tell the user if it keeps failing.`, {
        ...(err?.name === 'StorageFullError' ? { storage_full: true } : {}),
      });
    }
  }
}
