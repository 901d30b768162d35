// Initial JS, gzipped at zlib's default level as a web server would (SPEC §17: ≤ 150 KB without the web-llm chunk).
//
// "Initial" = what the browser must fetch before the app runs: the entry <script type=module>
// in index.html, its <link rel=modulepreload> siblings, and anything those statically import.
// Dynamic import() targets (the lazy web-llm chunk, workers) are not initial and not counted.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const attr = (tag, name) => tag.match(new RegExp(`\\s${name}\\s*=\\s*["']([^"']+)["']`, 'i'))?.[1];

/** Static imports at the top of an ES module (Vite/rolldown output keeps them there). */
function staticImports(code) {
  const found = [];
  const comment = /^\s*(?:\/\*[\s\S]*?\*\/|\/\/[^\n]*\n)/;
  const pattern = /^\s*(?:import|export)\s*(?:[\w*${}\s,]*?\s*from\s*)?["']([^"']+)["']\s*;?/;
  let rest = code;
  for (;;) {
    const skipped = rest.match(comment);
    if (skipped) {
      rest = rest.slice(skipped[0].length);
      continue;
    }
    const match = rest.match(pattern);
    if (!match) break;
    found.push(match[1]);
    rest = rest.slice(match[0].length);
  }
  return found;
}

export async function initialJsGzip(outDir) {
  const html = await readFile(path.join(outDir, 'index.html'), 'utf8');
  const roots = [];
  for (const tag of html.match(/<script\b[^>]*>/gi) ?? []) {
    if (/type\s*=\s*["']module["']/i.test(tag) && attr(tag, 'src')) roots.push(attr(tag, 'src'));
  }
  for (const tag of html.match(/<link\b[^>]*>/gi) ?? []) {
    if (/rel\s*=\s*["']modulepreload["']/i.test(tag) && attr(tag, 'href')) roots.push(attr(tag, 'href'));
  }
  if (roots.length === 0) throw new Error(`no module script found in ${outDir}/index.html`);

  const toFile = (url, from) => {
    const clean = url.split(/[?#]/)[0];
    return clean.startsWith('/') ? path.join(outDir, clean) : path.resolve(from ? path.dirname(from) : outDir, clean);
  };
  const files = new Map();
  const excluded = [];
  const queue = roots.map((url) => toFile(url));
  while (queue.length) {
    const file = queue.shift();
    if (files.has(file)) continue;
    if (/web-llm/i.test(path.basename(file))) {
      excluded.push(path.relative(outDir, file));
      continue;
    }
    const code = await readFile(file);
    files.set(file, gzipSync(code).length);
    for (const spec of staticImports(code.toString('utf8'))) {
      if (spec.startsWith('.') || spec.startsWith('/')) queue.push(toFile(spec, file));
    }
  }
  const bytes = [...files.values()].reduce((sum, size) => sum + size, 0);
  return {
    initialJsGzipKB: Math.round((bytes / 1024) * 10) / 10,
    initialJsFiles: Object.fromEntries([...files].map(([file, size]) => [path.relative(outDir, file), size])),
    ...(excluded.length ? { initialJsExcluded: excluded } : {}),
  };
}
