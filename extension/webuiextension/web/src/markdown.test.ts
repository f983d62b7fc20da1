import { describe, expect, test } from 'vitest';
import type { ComponentChildren, VNode } from 'preact';
import { Markdown } from './markdown';

type Props = Record<string, unknown> & { children?: ComponentChildren };

// The rendered tree: Markdown builds elements only, so walking its VNodes
// shows what the browser would get, without a DOM.
function tree(source: string): VNode<Props> {
  return Markdown({ source }) as VNode<Props>;
}

function nodes(n: ComponentChildren): VNode<Props>[] {
  if (n == null || typeof n !== 'object') return [];
  if (Array.isArray(n)) return n.flatMap(nodes);
  const v = n as VNode<Props>;
  return [v, ...nodes(v.props.children)];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// html serialises the tree as Preact writes it: text escaped, attributes
// quoted.
function html(n: ComponentChildren): string {
  if (n == null || typeof n === 'boolean') return '';
  if (typeof n === 'string' || typeof n === 'number' || typeof n === 'bigint') return esc(String(n));
  if (Array.isArray(n)) return n.map(html).join('');
  const v = n as VNode<Props>;
  if (typeof v.type !== 'string') throw new Error('Markdown renders elements only');
  const { children, ...attrs } = v.props;
  const a = Object.entries(attrs)
    .filter(([, x]) => x !== undefined)
    .map(([k, x]) => ` ${k}="${esc(String(x))}"`)
    .join('');
  return `<${v.type}${a}>${html(children)}</${v.type}>`;
}

const render = (source: string) => html(tree(source));

// Whatever the note holds, only these elements are built, and no element
// takes raw HTML.
const allowed = new Set(['div', 'p', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'pre', 'code', 'strong', 'em', 'a']);
function expectOnlySafeElements(source: string) {
  for (const v of nodes(tree(source))) {
    expect(allowed.has(v.type as string), `element ${String(v.type)}`).toBe(true);
    expect(v.props).not.toHaveProperty('dangerouslySetInnerHTML');
    for (const k of Object.keys(v.props)) expect(k.startsWith('on'), `attribute ${k}`).toBe(false);
  }
}

describe('Markdown', () => {
  test('an image is named, not fetched nor left as markdown', () => {
    expect(render('![](/static/images/logos/docker_small.svg)')).toBe('<div class="markdown"><p><em class="muted">(image)</em></p></div>');
    expect(render('see ![the logo](https://evil.example/x.png) here')).toBe('<div class="markdown"><p>see <em class="muted">(image: the logo)</em> here</p></div>');
    expectOnlySafeElements('![x](javascript:alert(1))');
  });

  test('headings, paragraphs and lists', () => {
    expect(render('# Errors\nby *service*, **today**\n\n- one\n- two\n\n1. first\r\n2. second')).toBe(
      '<div class="markdown"><h2 class="md-h">Errors</h2><p>by <em>service</em>, <strong>today</strong></p>' +
        '<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol></div>',
    );
    expect(render('###### deep')).toBe('<div class="markdown"><h6 class="md-h">deep</h6></div>');
  });

  test('code is shown as written, markdown and HTML in it as text', () => {
    expect(render('run `make **all**` now')).toBe('<div class="markdown"><p>run <code>make **all**</code> now</p></div>');
    expect(render('```\n<b>bold?</b>\n  - not a list\n```')).toBe(
      '<div class="markdown"><pre><code>&lt;b&gt;bold?&lt;/b&gt;\n  - not a list</code></pre></div>',
    );
  });

  test('HTML in the source is text, never elements', () => {
    const sources = [
      '<script>alert(1)</script>',
      'hi <img src=x onerror="alert(1)"> there',
      '# <iframe src="https://evil.example"></iframe>',
      '- <a href="javascript:alert(1)">x</a>',
      '**<style>body{display:none}</style>**',
    ];
    for (const s of sources) {
      expectOnlySafeElements(s);
      const out = render(s);
      expect(out).not.toMatch(/<(script|img|iframe|style)\b/);
    }
    expect(render('<script>alert(1)</script>')).toBe('<div class="markdown"><p>&lt;script&gt;alert(1)&lt;/script&gt;</p></div>');
  });

  test('links go to http(s) in a new tab, or within the app', () => {
    expect(render('[docs](https://example.com/a?b=1)')).toBe(
      '<div class="markdown"><p><a href="https://example.com/a?b=1" rel="noopener noreferrer" target="_blank">docs</a></p></div>',
    );
    expect(render('[HTTP](HTTP://example.com)')).toContain('<a href="HTTP://example.com" rel="noopener noreferrer" target="_blank">');
    expect(render('[board](/dashboards/abc)')).toBe(
      '<div class="markdown"><p><a href="/dashboards/abc" rel="noopener noreferrer">board</a></p></div>',
    );
  });

  test('links to javascript:, data: and other schemes are refused', () => {
    for (const href of [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'vbscript:msgbox(1)',
      '//evil.example/x',
      'file:///etc/passwd',
      'mailto:a@example.com',
    ]) {
      const source = `[click](${href})`;
      expectOnlySafeElements(source);
      const links = nodes(tree(source)).filter((v) => v.type === 'a');
      expect(links, href).toEqual([]);
      expect(render(source), href).toContain(`click (${esc(href)})`);
    }
  });
});
