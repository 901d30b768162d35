/**
 * A small check of tool arguments against the tool's JSON schema: the object shape,
 * required keys, declared top-level types, enums, and unknown keys when the schema forbids
 * them. Not a full JSON Schema validator: it catches what models actually get wrong, in
 * words a model can act on, and lets the tool itself judge the rest.
 */
type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : undefined;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

/** Problems with `args` for `schema`, as short sentences; empty when it fits. */
export function checkToolArguments(args: unknown, schema: unknown): string[] {
  const root = asSchema(schema);
  if (!root) return [];
  const problems: string[] = [];
  if (typeOf(args) !== 'object') {
    return [`"arguments" must be a JSON object, not ${typeOf(args)}.`];
  }
  const values = args as Record<string, unknown>;
  const properties = asSchema(root.properties) ?? {};
  const required = Array.isArray(root.required) ? root.required.filter((key): key is string => typeof key === 'string') : [];
  for (const key of required) {
    if (!(key in values) || values[key] === undefined) problems.push(`Missing required argument "${key}".`);
  }
  for (const [key, value] of Object.entries(values)) {
    const property = asSchema(properties[key]);
    if (!property) {
      if (root.additionalProperties === false) {
        const known = Object.keys(properties);
        problems.push(`Unknown argument "${key}"${known.length ? ` (expected: ${known.join(', ')})` : ''}.`);
      }
      continue;
    }
    const declared = property.type;
    const types = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared.filter((t): t is string => typeof t === 'string') : [];
    if (types.length > 0 && !types.some((type) => matchesType(value, type))) {
      problems.push(`Argument "${key}" must be ${types.join(' or ')}, not ${typeOf(value)}.`);
      continue;
    }
    if (Array.isArray(property.enum) && !property.enum.some((allowed) => allowed === value)) {
      problems.push(`Argument "${key}" must be one of ${property.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}.`);
    }
  }
  return problems;
}
