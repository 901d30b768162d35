/**
 * Canonical JSON: the one serialisation the gate hashes (split keys, replay cache keys;
 * docs/gate.md). Object keys sorted by code unit, no whitespace, strings and numbers as
 * JSON.stringify writes them, properties whose value is undefined left out (as JSON.stringify
 * does). Anything a hash should not silently paper over (NaN, Infinity, BigInt, functions,
 * symbols, cycles, undefined inside an array, class instances such as Date or Map) throws instead of turning into `null`.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, open: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} has no JSON form`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
  }
  const object = value as object;
  if (open.has(object)) throw new TypeError('canonicalJson: the value contains a cycle');
  open.add(object);
  try {
    if (Array.isArray(object)) {
      return `[${object
        .map((item) => {
          if (item === undefined) throw new TypeError('canonicalJson: undefined inside an array');
          return write(item, open);
        })
        .join(',')}]`;
    }
    const prototype = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new TypeError(`canonicalJson: a ${object.constructor?.name ?? 'non-plain'} object has no canonical form`);
    }
    const record = object as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${write(record[key], open)}`).join(',')}}`;
  } finally {
    open.delete(object);
  }
}
