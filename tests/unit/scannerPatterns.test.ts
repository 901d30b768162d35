/**
 * The scanner's class table (src/skills/scannerPatterns.ts): every class fires on its example
 * and stays quiet on its benign twin, every pattern belongs to exactly one class of one
 * severity, and docs/scanner-patterns.md lists every class with its severity and count.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCANNER_CLASSES, THREAT_PATTERNS, onlyLoopbackUrls } from '../../src/skills/scannerPatterns';
import { scanText } from '../../src/skills/scanner';

const DOC = readFileSync(new URL('../../docs/scanner-patterns.md', import.meta.url), 'utf8');

/** Rows of the doc's class table: `| \`id\` | category | severity | patterns | example |`. */
function docRows(): Map<string, { category: string; severity: string; count: number }> {
  const rows = new Map<string, { category: string; severity: string; count: number }>();
  for (const line of DOC.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const id = /^`([a-z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!id || cells.length < 6) continue;
    rows.set(id, { category: cells[2], severity: cells[3], count: Number(cells[4]) });
  }
  return rows;
}

describe('SCANNER_CLASSES', () => {
  for (const scannerClass of SCANNER_CLASSES) {
    it(`${scannerClass.id} fires on its example`, () => {
      const found = scanText(scannerClass.example).filter((f) => scannerClass.patternIds.includes(f.patternId));
      expect(found.length, scannerClass.example).toBeGreaterThan(0);
      for (const f of found) expect(f.severity).toBe(scannerClass.severity);
    });

    it(`${scannerClass.id} stays quiet on its benign twin`, () => {
      expect(scanText(scannerClass.benign)).toEqual([]);
    });
  }

  it('every pattern is in exactly one class, with that class severity and category', () => {
    const owner = new Map<string, string>();
    for (const c of SCANNER_CLASSES) {
      for (const id of c.patternIds) {
        expect(owner.has(id), `${id} is in ${owner.get(id)} and ${c.id}`).toBe(false);
        owner.set(id, c.id);
      }
    }
    for (const p of THREAT_PATTERNS) {
      const c = SCANNER_CLASSES.find((x) => x.id === p.className)!;
      expect(owner.get(p.id)).toBe(p.className);
      expect(p.severity).toBe(c.severity);
      expect(p.category).toBe(c.category);
    }
    expect(new Set(SCANNER_CLASSES.map((c) => c.id)).size).toBe(SCANNER_CLASSES.length);
  });

  it('covers every Hermes category', () => {
    const categories = new Set(SCANNER_CLASSES.map((c) => c.category));
    for (const c of ['exfiltration', 'injection', 'obfuscation', 'persistence', 'supply_chain', 'network', 'destructive', 'execution', 'credential_exposure', 'traversal', 'privilege_escalation', 'mining']) {
      expect(categories.has(c as never), c).toBe(true);
    }
  });
});

describe('docs/scanner-patterns.md', () => {
  const rows = docRows();

  it('lists every class with its category, severity and pattern count', () => {
    for (const c of SCANNER_CLASSES) {
      const row = rows.get(c.id);
      expect(row, `docs/scanner-patterns.md has no row for ${c.id}`).toBeDefined();
      expect(row).toEqual({ category: c.category, severity: c.severity, count: c.patternIds.length });
    }
  });

  it('lists no class the scanner does not have', () => {
    const ids = new Set(SCANNER_CLASSES.map((c) => c.id));
    for (const id of rows.keys()) expect(ids.has(id), `${id} is in the doc but not in SCANNER_CLASSES`).toBe(true);
  });
});

describe('onlyLoopbackUrls', () => {
  it('is true only when every URL on the line is a loopback address', () => {
    expect(onlyLoopbackUrls('curl http://localhost:8080/x and http://127.0.0.1:3000/')).toBe(true);
    expect(onlyLoopbackUrls('curl http://[::1]:8080/x')).toBe(true);
    expect(onlyLoopbackUrls('curl http://localhost/x https://collector.example/')).toBe(false);
    expect(onlyLoopbackUrls('curl http://localhost.collector.example/x')).toBe(false);
    expect(onlyLoopbackUrls('curl $HOST -d $TOKEN')).toBe(false);
  });
});
