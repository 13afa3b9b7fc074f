import { createElement, type ReactNode } from 'react';

/** The only elements a template body may render (everything else is unwrapped to its text, or dropped). */
export const ALLOWED_TAGS: ReadonlySet<string> = new Set(['p', 'h2', 'h3', 'ol', 'ul', 'li', 'strong', 'br']);
/** Elements whose content is never text for the reader: dropped with their content. */
const DROPPED_TAGS: ReadonlySet<string> = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'head',
  'title',
  'textarea',
  'select',
]);

function convert(nodes: NodeListOf<ChildNode>, prefix: string): ReactNode[] {
  const out: ReactNode[] = [];
  nodes.forEach((node, i) => {
    const key = `${prefix}.${i}`;
    if (node.nodeType === Node.TEXT_NODE) {
      if (node.textContent) out.push(node.textContent);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const tag = (node as Element).tagName.toLowerCase();
    if (DROPPED_TAGS.has(tag)) return;
    if (tag === 'br') {
      out.push(createElement('br', { key }));
    } else if (ALLOWED_TAGS.has(tag)) {
      // No attributes are copied: no href, no on*, no style.
      out.push(createElement(tag, { key }, ...convert(node.childNodes, key)));
    } else {
      out.push(...convert(node.childNodes, key));
    }
  });
  return out;
}

/**
 * Server HTML as React elements, by allow-list: the markup is parsed with DOMParser (which runs no scripts)
 * and rebuilt from p, h2, h3, ol, ul, li, strong, br and text only. No innerHTML is ever set.
 */
export function sanitizeHtml(html: string): ReactNode[] {
  if (!html) return [];
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return convert(doc.body.childNodes, 'n');
}

export function SafeHtml({ html, className }: { html: string; className?: string }) {
  return <div className={className}>{sanitizeHtml(html)}</div>;
}
