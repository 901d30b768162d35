/**
 * The app's one Markdown sanitiser (src/ui/markdown.ts) against an XSS and resource-load
 * corpus, called through `knackUi.renderMarkdown`, the function every view uses. Each output
 * goes into the live page the way the chat puts it (innerHTML), is read back and parsed again
 * (mutation XSS shows up as a difference), and every element, attribute and link is checked
 * against the allow-list: nothing outside it may survive, whatever the obfuscation.
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';

const EVIL = 'evil.example';

/** Each entry is Markdown text as a model, a skill or an import could hold it. */
const CORPUS: Record<string, string> = {
  'img onerror': '<img src=x onerror="window.__xss=1">',
  'svg image href': `<svg><image href="https://${EVIL}/p.png" width="10" height="10"/></svg>`,
  'svg image xlink:href': `<svg xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="https://${EVIL}/x.png"/></svg>`,
  'svg feImage': `<svg><filter id="f"><feImage href="https://${EVIL}/f.png"/></filter><rect width="9" height="9" filter="url(#f)"/></svg>`,
  'svg use': `<svg><use href="https://${EVIL}/s.svg#x"/></svg>`,
  'svg animate href': '<svg><a><animate attributeName="href" values="javascript:window.__xss=2"/><text y="20">click</text></a></svg>',
  'svg set handler': '<svg><set attributeName="onmouseover" to="window.__xss=3"/></svg>',
  'svg onload': '<svg onload="window.__xss=4"><circle r="1"/></svg>',
  'svg foreignObject': '<svg><foreignObject><img src=x onerror="window.__xss=5"></foreignObject></svg>',
  'svg xlink javascript': '<svg><a xlink:href="javascript:window.__xss=6"><text>x</text></a></svg>',
  'svg style img': '<svg><style><img src=x onerror=window.__xss=7></style></svg>',
  'mathml mglyph style': '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=8">',
  'mathml href': '<math href="javascript:window.__xss=9"><mi>x</mi></math>',
  'mathml maction': '<math><maction actiontype="statusline" xlink:href="javascript:window.__xss=10">x</maction></math>',
  'style element': `<style>@import url(https://${EVIL}/s.css); body { background: url(https://${EVIL}/b.png) }</style>text`,
  'style attribute': `<div style="background:url(https://${EVIL}/x.png)">styled</div>`,
  form: `<form action="https://${EVIL}/"><input name="q"><button formaction="javascript:window.__xss=11">Go</button></form>`,
  'input image': `<input type="image" src="https://${EVIL}/i.png">`,
  'iframe srcdoc': '<iframe srcdoc="<script>parent.__xss=12</script>"></iframe>',
  'iframe javascript': '<iframe src="javascript:window.__xss=13"></iframe>',
  'meta refresh': `<meta http-equiv="refresh" content="0;url=https://${EVIL}/">`,
  'link and base': `<link rel="stylesheet" href="https://${EVIL}/s.css"><base href="https://${EVIL}/">after`,
  'object and embed': `<object data="https://${EVIL}/o.swf"></object><embed src="https://${EVIL}/e.swf">`,
  media: `<video poster="https://${EVIL}/p.png"><source src="https://${EVIL}/v.mp4"></video><audio src="https://${EVIL}/a.mp3"></audio>`,
  'picture srcset': `<picture><source srcset="https://${EVIL}/s.png 1x"><img srcset="https://${EVIL}/i.png 2x"></picture>`,
  'table background': `<table background="https://${EVIL}/t.png"><tr><td background="https://${EVIL}/d.png">cell</td></tr></table>`,
  'noscript mxss': '<noscript><p title="</noscript><img src=x onerror=window.__xss=14>">',
  'template content': '<template><img src=x onerror=window.__xss=15></template>',
  'textarea and title': '<textarea><img src=x onerror=window.__xss=16></textarea><title><img src=x onerror=window.__xss=17></title>',
  'comment and cdata': '<!--<img src=x onerror=window.__xss=18>--><![CDATA[<img src=x onerror=window.__xss=19>]]>',
  'split script': '<scr<script>ipt>window.__xss=20</script>',
  'script element': '<script>window.__xss=21</script>',
  'event handlers': '<div onmouseover="window.__xss=22">hover</div><details open ontoggle="window.__xss=23"><summary>s</summary>t</details>',
  'body and marquee': '<body onload="window.__xss=24"><marquee onstart="window.__xss=25">m</marquee>',
  'attribute clutter': '<a href="https://ok.example/" onclick="window.__xss=26" style="color:red" id="x" name="y" data-x="1" class="button" ping="https://evil.example/ping" aria-label="fake">ok</a>',
  'markdown javascript link': '[a](javascript:window.__xss=27) [b](JaVaScRiPt:window.__xss=28) [c](  javascript:window.__xss=29)',
  'entity-obfuscated links':
    '<a href="jav&#x09;ascript:window.__xss=30">d</a> <a href="jav&#x0A;ascript:window.__xss=31">e</a> ' +
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;window.__xss=32">f</a> ' +
    '<a href=" &#x6A;avascript:window.__xss=33">g</a> <a href="java&#0;script:window.__xss=34">h</a>',
  'data and vbscript links':
    '[i](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) <a href="data:image/svg+xml,<svg onload=alert(1)>">j</a> ' +
    '<a href="vbscript:msgbox(1)">k</a> <a href="VBScript&colon;msgbox(1)">l</a>',
  'markdown image': `![pixel](https://${EVIL}/pixel.png) ![inline](data:image/png;base64,iVBORw0KGgo=)`,
  'reference image': `![ref][p]\n\n[p]: https://${EVIL}/ref.png`,
  'html entities stay text': '&lt;script&gt;window.__xss=35&lt;/script&gt; &lt;img src=x onerror=window.__xss=36&gt;',
  'nested quotes in attribute': '<a title="&quot;><img src=x onerror=window.__xss=37>" href="https://ok.example/">t</a>',
};

const ALLOWED_TAGS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption', 'a', 'strong', 'b', 'em', 'i', 'del', 's', 'ins', 'u',
  'mark', 'small', 'sub', 'sup', 'kbd', 'samp', 'var', 'abbr', 'q', 'cite', 'details', 'summary', 'span', 'div',
];
const ALLOWED_ATTRIBUTES = ['href', 'title', 'align', 'start', 'colspan', 'rowspan', 'open', 'class', 'target', 'rel'];

interface Rendered {
  html: string;
  /** Everything in the output that the allow-list does not permit. */
  violations: string[];
  /** The output differs once parsed and serialised again (a mutation-XSS sign). */
  reparsed: string;
  text: string;
}

/** Renders each input through the app's sanitiser, mounts it live and lists what breaks the rules. */
async function renderAll(page: Page, inputs: Record<string, string>): Promise<Record<string, Rendered>> {
  return page.evaluate(
    ({ inputs, allowedTags, allowedAttributes }) => {
      const out: Record<string, Rendered> = {};
      const host = document.createElement('div');
      document.body.append(host);
      for (const [label, input] of Object.entries(inputs)) {
        const html = globalThis.knackUi!.renderMarkdown(input);
        const container = document.createElement('div');
        host.append(container);
        container.innerHTML = html;
        const violations: string[] = [];
        for (const element of container.querySelectorAll('*')) {
          const tag = element.localName;
          if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml') violations.push(`foreign element <${tag}> (${element.namespaceURI})`);
          if (!allowedTags.includes(tag)) violations.push(`element <${tag}>`);
          for (const attribute of element.attributes) {
            if (!allowedAttributes.includes(attribute.name)) violations.push(`attribute ${attribute.name} on <${tag}>`);
          }
          const className = element.getAttribute('class');
          if (className !== null && !(tag === 'code' && /^language-[\w+#.-]+$/.test(className))) violations.push(`class "${className}" on <${tag}>`);
          const href = element.getAttribute('href');
          if (href !== null) {
            const protocol = new URL(href, location.href).protocol;
            if (!['http:', 'https:', 'mailto:'].includes(protocol)) violations.push(`href ${JSON.stringify(href)} (${protocol})`);
            if (tag === 'a' && (element.getAttribute('target') !== '_blank' || element.getAttribute('rel') !== 'noopener noreferrer')) {
              violations.push(`link without target/rel hardening: ${element.outerHTML}`);
            }
          }
        }
        const again = document.createElement('div');
        again.innerHTML = container.innerHTML;
        out[label] = { html, violations, reparsed: again.innerHTML === container.innerHTML ? 'same' : again.innerHTML, text: container.textContent ?? '' };
      }
      return out;
    },
    { inputs, allowedTags: ALLOWED_TAGS, allowedAttributes: ALLOWED_ATTRIBUTES },
  );
}

async function openApp(page: Page): Promise<void> {
  await page.goto('/');
  await page.waitForFunction(() => typeof globalThis.knackUi?.renderMarkdown === 'function');
}

test('no element, attribute or URL outside the allow-list survives the XSS corpus', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes(EVIL)) requested.push(request.url());
  });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await openApp(page);
  const rendered = await renderAll(page, CORPUS);

  for (const [label, result] of Object.entries(rendered)) {
    expect(result.violations, `${label}: ${result.html}`).toEqual([]);
    expect(result.reparsed, `${label} changes when parsed again`).toBe('same');
    // No SVG/MathML or resource-loading markup survives even as an escaped-looking leftover.
    expect(result.html, label).not.toMatch(/<(svg|math|image|feimage|use|animate|set|img|iframe|object|embed|style|link|meta|base|form|input|video|audio|source|picture|script|template|noscript)\b/i);
  }
  // The things that should survive do.
  expect(rendered['attribute clutter'].html).toBe('<p><a href="https://ok.example/" target="_blank" rel="noopener noreferrer">ok</a></p>\n');
  expect(rendered['event handlers'].html).toContain('<details open=""><summary>s</summary>t</details>');
  expect(rendered['table background'].html).toContain('<td>cell</td>');
  expect(rendered['html entities stay text'].text).toContain('<script>window.__xss=35</script>');
  expect(rendered['nested quotes in attribute'].html).toMatch(/^<p><a title="[^"]+" href="https:\/\/ok\.example\/" target="_blank" rel="noopener noreferrer">t<\/a><\/p>\n$/);
  expect(rendered['markdown image'].html).not.toContain(EVIL);

  // Everything was mounted in the live page: nothing ran and nothing was fetched. (The checks
  // above are the proof; these catch a regression that slipped past them.)
  const ran = await page.evaluate(() => (globalThis as Record<string, unknown>).__xss ?? null);
  expect(ran).toBeNull();
  expect(dialogs).toEqual([]);
  expect(requested).toEqual([]);
});

test('ordinary Markdown still renders: code, tables, links, lists, quotes, details', async ({ page }) => {
  await openApp(page);
  const text = [
    '# Title',
    '## Steps',
    '',
    'Some *emphasis*, **strong**, ~~gone~~ and `inline <svg>` code.',
    '',
    '1. first',
    '2. second',
    '',
    '- [x] done',
    '- item with [a link](https://example.org/docs "Docs"), [mail](mailto:me@example.org) and [relative](references/api.md) and [anchor](#steps)',
    '',
    '> quoted',
    '',
    '```ts',
    'const svg = "<svg onload=alert(1)>";',
    '```',
    '',
    '| left | centre | right |',
    '| :--- | :----: | ----: |',
    '| a | b | c |',
    '',
    '---',
    '',
    '<details><summary>More</summary>',
    '',
    'Hidden <kbd>Ctrl</kbd> text.',
    '',
    '</details>',
  ].join('\n');
  const { html, violations } = (await renderAll(page, { text })).text;
  expect(violations).toEqual([]);
  expect(html).toContain('<h1>Title</h1>');
  expect(html).toContain('<h2>Steps</h2>');
  expect(html).toContain('<em>emphasis</em>');
  expect(html).toContain('<strong>strong</strong>');
  expect(html).toContain('<del>gone</del>');
  expect(html).toContain('<code>inline &lt;svg&gt;</code>');
  expect(html).toMatch(/<ol>\s*<li>first<\/li>\s*<li>second<\/li>\s*<\/ol>/);
  expect(html).toContain('<a href="https://example.org/docs" title="Docs" target="_blank" rel="noopener noreferrer">a link</a>');
  expect(html).toContain('<a href="mailto:me@example.org" target="_blank" rel="noopener noreferrer">mail</a>');
  expect(html).toContain('<a href="references/api.md" target="_blank" rel="noopener noreferrer">relative</a>');
  expect(html).toContain('<a href="#steps" target="_blank" rel="noopener noreferrer">anchor</a>');
  expect(html).toMatch(/<blockquote>\s*<p>quoted<\/p>\s*<\/blockquote>/);
  expect(html).toContain('<pre><code class="language-ts">const svg = "&lt;svg onload=alert(1)&gt;";\n</code></pre>');
  expect(html).toContain('<th align="center">centre</th>');
  expect(html).toContain('<td align="right">c</td>');
  expect(html).toContain('<hr>');
  expect(html).toContain('<details><summary>More</summary>');
  expect(html).toContain('<kbd>Ctrl</kbd>');
  // A task-list checkbox is an <input>, which is not allowed; its item text stays.
  expect(html).toMatch(/<li>\s*done<\/li>/);
});

/** What a highlighter could be tricked into emitting, and what a reply could write by hand. */
const HIGHLIGHT_CORPUS: Record<string, string> = {
  'highlight classes kept': '<span class="hljs-keyword">const</span> <span class="hljs-title function_">f</span>',
  'other classes dropped': '<span class="hljs-string button primary">s</span><span class="copy">c</span>',
  'class lookalikes dropped': '<span class="hljs-">a</span><span class="hljs-x&quot;onclick">b</span><span class="HLJS-KEYWORD">c</span><span class="__proto__">d</span>',
  'elements other than span': '<a href="javascript:window.__xss=40" class="hljs-link">l</a><img src=x onerror="window.__xss=41"><b class="hljs-keyword">b</b><div class="hljs-keyword">d</div>',
  'attributes other than class': '<span class="hljs-keyword" style="position:fixed;inset:0" onclick="window.__xss=42" id="i" title="t" data-x="1">k</span>',
  'svg and math in code': '<svg><image href="https://evil.example/p.png"/></svg><math><mi class="hljs-keyword">x</mi></math>',
  'script in span': '<span class="hljs-string"><script>window.__xss=43</script>s</span>',
};

test('highlighted code keeps only spans with highlight classes; replies cannot use those classes', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate((inputs) => {
    const results: Record<string, { html: string; bad: string[] }> = {};
    for (const [label, input] of Object.entries(inputs)) {
      const html = globalThis.knackUi!.sanitizeHighlighted(input);
      const host = document.createElement('code');
      host.innerHTML = html;
      const bad: string[] = [];
      for (const element of host.querySelectorAll('*')) {
        if (element.localName !== 'span') bad.push(`<${element.localName}>`);
        for (const attribute of element.attributes) if (attribute.name !== 'class') bad.push(`${attribute.name} on <span>`);
        for (const name of element.classList) if (!/^(?:hljs-[a-z][\w-]*|[a-z]+_+)$/.test(name)) bad.push(`class ${name}`);
      }
      results[label] = { html, bad };
    }
    return { results, xss: (window as { __xss?: unknown }).__xss ?? null, reply: globalThis.knackUi!.renderMarkdown('<span class="hljs-keyword">not code</span>') };
  }, HIGHLIGHT_CORPUS);
  for (const [label, result] of Object.entries(out.results)) expect(result.bad, `${label}: ${result.html}`).toEqual([]);
  expect(out.xss).toBeNull();
  expect(out.results['highlight classes kept']!.html).toBe('<span class="hljs-keyword">const</span> <span class="hljs-title function_">f</span>');
  expect(out.results['other classes dropped']!.html).toBe('<span class="hljs-string">s</span><span>c</span>');
  expect(out.results['elements other than span']!.html).toBe('lbd');
  expect(out.results['attributes other than class']!.html).toBe('<span class="hljs-keyword">k</span>');
  // The highlight classes are for the highlighter's output only: a reply's own span loses them.
  expect(out.reply).toBe('<p><span>not code</span></p>\n');
});
