/**
 * The JSON Schema subset a forged tool's `input_schema` and `output_schema` may use
 * (docs/forged-tools.md, "The form"). Small on purpose: the schema is shown to small chat
 * models (every keyword costs tokens of a 4,096-token window) and is checked here without a
 * schema library. A keyword outside the subset is an error, never silently ignored, so a
 * schema never claims a constraint that nothing enforces.
 */

export type SchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

const SCHEMA_TYPES: readonly SchemaType[] = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** Every keyword the subset knows; anything else is refused with this list. */
export const SCHEMA_KEYWORDS: readonly string[] = [
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'default',
  'title',
];

/** Deepest nesting of schemas inside a schema (objects in arrays in objects…). */
export const MAX_SCHEMA_DEPTH = 6;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;

function typesOf(schema: Record<string, unknown>): SchemaType[] | null {
  const { type } = schema;
  if (type === undefined) return null;
  return (Array.isArray(type) ? type : [type]) as SchemaType[];
}

function typeProblems(schema: Record<string, unknown>, at: string): string[] {
  if (schema.type === undefined) return [];
  const list = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (list.length === 0) return [`${at}.type: give at least one type`];
  const bad = list.filter((t) => !SCHEMA_TYPES.includes(t as SchemaType));
  return bad.length ? [`${at}.type: ${bad.map((t) => JSON.stringify(t)).join(', ')} is not one of ${SCHEMA_TYPES.join(', ')}`] : [];
}

function keywordProblems(schema: Record<string, unknown>, at: string): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_KEYWORDS.includes(key)) problems.push(`${at}.${key}: not supported (use only ${SCHEMA_KEYWORDS.join(', ')})`);
  }
  for (const key of ['minimum', 'maximum'] as const) {
    if (schema[key] !== undefined && typeof schema[key] !== 'number') problems.push(`${at}.${key}: must be a number`);
  }
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    if (schema[key] !== undefined && !isCount(schema[key])) problems.push(`${at}.${key}: must be a non-negative integer`);
  }
  if (schema.description !== undefined && typeof schema.description !== 'string') problems.push(`${at}.description: must be a string`);
  if (schema.enum !== undefined && (!Array.isArray(schema.enum) || schema.enum.length === 0)) problems.push(`${at}.enum: must be a non-empty array`);
  if (schema.required !== undefined && (!Array.isArray(schema.required) || schema.required.some((r) => typeof r !== 'string'))) {
    problems.push(`${at}.required: must be an array of property names`);
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties !== 'boolean') {
    problems.push(`${at}.additionalProperties: must be true or false (schemas there are not supported)`);
  }
  return problems;
}

/** Problems of a schema, each as "path: what is wrong"; empty when the schema is in the subset. */
export function schemaProblems(schema: unknown, at = 'schema', depth = 0): string[] {
  if (!isRecord(schema)) return [`${at}: must be a JSON object such as {"type": "number"}`];
  if (depth > MAX_SCHEMA_DEPTH) return [`${at}: nested deeper than ${MAX_SCHEMA_DEPTH} levels`];
  const problems = [...typeProblems(schema, at), ...keywordProblems(schema, at)];
  if (schema.properties !== undefined) {
    if (!isRecord(schema.properties)) problems.push(`${at}.properties: must be an object of property schemas`);
    else for (const [key, sub] of Object.entries(schema.properties)) problems.push(...schemaProblems(sub, `${at}.properties.${key}`, depth + 1));
  }
  if (schema.items !== undefined) problems.push(...schemaProblems(schema.items, `${at}.items`, depth + 1));
  return problems;
}

function typeOfValue(value: unknown): SchemaType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as SchemaType;
}

function matchesType(types: SchemaType[], value: unknown): boolean {
  const actual = typeOfValue(value);
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function boundProblem(schema: Record<string, unknown>, value: unknown, at: string): string | null {
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `${at}: ${value} is below the minimum ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `${at}: ${value} is above the maximum ${schema.maximum}`;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (isCount(schema.minLength) && length < (schema.minLength as number)) return `${at}: shorter than ${schema.minLength as number} characters`;
    if (isCount(schema.maxLength) && length > (schema.maxLength as number)) return `${at}: longer than ${schema.maxLength as number} characters`;
  }
  if (Array.isArray(value)) {
    if (isCount(schema.minItems) && value.length < (schema.minItems as number)) return `${at}: fewer than ${schema.minItems as number} items`;
    if (isCount(schema.maxItems) && value.length > (schema.maxItems as number)) return `${at}: more than ${schema.maxItems as number} items`;
  }
  return null;
}

function objectProblem(schema: Record<string, unknown>, value: Record<string, unknown>, at: string): string | null {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const key of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
    if (!(key in value)) return `${at}: missing required property '${key}'`;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key in properties) {
      const problem = valueProblem(properties[key], item, `${at}.${key}`);
      if (problem) return problem;
    } else if (schema.additionalProperties === false) {
      return `${at}: property '${key}' is not allowed`;
    }
  }
  return null;
}

/**
 * The first way `value` breaks `schema` ("input.amount: expected number, got string"), or
 * null when it conforms. Assumes `schemaProblems(schema)` is empty.
 */
export function valueProblem(schema: unknown, value: unknown, at = 'value'): string | null {
  if (!isRecord(schema)) return null;
  const types = typesOf(schema);
  if (types && !matchesType(types, value)) return `${at}: expected ${types.join(' or ')}, got ${typeOfValue(value)}`;
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) {
    return `${at}: must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`;
  }
  const bound = boundProblem(schema, value, at);
  if (bound) return bound;
  if (isRecord(value)) return objectProblem(schema, value, at);
  if (Array.isArray(value) && schema.items !== undefined) {
    for (let i = 0; i < value.length; i++) {
      const problem = valueProblem(schema.items, value[i], `${at}[${i}]`);
      if (problem) return problem;
    }
  }
  return null;
}
