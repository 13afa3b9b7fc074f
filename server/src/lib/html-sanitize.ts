/**
 * A small HTML sanitiser for the editable templates (terms, privacy, inquiry, examining notes). It keeps
 * only p, h2, h3, ol, ul, li, strong and br, with no attributes, and text; it never builds a DOM. The
 * tokenizer is tolerant: a `<` that starts no tag is text, an unterminated tag at the end is dropped,
 * quoted attribute values may hold `>`, unknown tags are unwrapped to their text, and elements whose
 * content is not text for the reader (script, style, …) are dropped with their content. The output is
 * balanced: every kept element is closed, stray end tags are dropped.
 */

/** The elements kept (all attributes are removed). */
export const SANITIZE_ALLOWED_TAGS: ReadonlySet<string> = new Set([
  'p',
  'h2',
  'h3',
  'ol',
  'ul',
  'li',
  'strong',
  'br',
]);

const VOID_TAGS: ReadonlySet<string> = new Set(['br']);

/** Dropped together with everything up to their end tag. */
const DROPPED_WITH_CONTENT: ReadonlySet<string> = new Set([
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
  'xmp',
  'plaintext',
]);

/** A character reference that stays as is: named (&amp;), decimal (&#38;) or hex (&#x26;). */
const ENTITY = /^&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});/;

function escapeText(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '<') out += '&lt;';
    else if (c === '>') out += '&gt;';
    else if (c === '&') {
      const m = ENTITY.exec(text.slice(i, i + 40));
      if (m) {
        out += m[0];
        i += m[0].length - 1;
      } else out += '&amp;';
    } else if (c === '\u0000') continue;
    else out += c;
  }
  return out;
}

interface Tag {
  name: string;
  closing: boolean;
  /** Index just after the tag's `>`. */
  end: number;
}

/** Reads a tag starting at `start` (the `<`); null when the text there is not a tag. */
function readTag(html: string, start: number): Tag | null | 'unterminated' {
  let i = start + 1;
  const closing = html[i] === '/';
  if (closing) i += 1;
  const m = /^[A-Za-z][A-Za-z0-9-]*/.exec(html.slice(i, i + 64));
  if (!m) return null;
  const name = m[0].toLowerCase();
  i += m[0].length;
  // Attributes: skip to the `>` that is not inside a quoted value.
  let quote: string | null = null;
  for (; i < html.length; i += 1) {
    const c = html[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return { name, closing, end: i + 1 };
  }
  return 'unterminated';
}

/** Index after the end tag `</name ...>` from `from`, or the text's length when there is none. */
function skipPast(html: string, from: number, name: string): number {
  const lower = html.toLowerCase();
  let i = from;
  for (;;) {
    const at = lower.indexOf(`</${name}`, i);
    if (at < 0) return html.length;
    const tag = readTag(html, at);
    if (tag === 'unterminated') return html.length;
    if (tag && tag.closing && tag.name === name) return tag.end;
    i = at + 2;
  }
}

/** Sanitises template HTML (see the module comment); the result is safe to render as HTML. */
export function sanitizeHtml(html: string): string {
  let out = '';
  const open: string[] = [];
  let text = '';
  const flush = () => {
    out += escapeText(text);
    text = '';
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text += html.slice(i);
      break;
    }
    text += html.slice(i, lt);
    // Comments, doctypes, CDATA and processing instructions are dropped.
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html[lt + 1] === '!' || html[lt + 1] === '?') {
      const end = html.indexOf('>', lt);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    const tag = readTag(html, lt);
    if (tag === 'unterminated') break;
    if (tag === null) {
      text += '<';
      i = lt + 1;
      continue;
    }
    i = tag.end;
    if (!tag.closing && DROPPED_WITH_CONTENT.has(tag.name)) {
      i = skipPast(html, tag.end, tag.name);
      continue;
    }
    if (!SANITIZE_ALLOWED_TAGS.has(tag.name)) continue;
    flush();
    if (VOID_TAGS.has(tag.name)) {
      if (!tag.closing) out += `<${tag.name}>`;
      continue;
    }
    if (!tag.closing) {
      out += `<${tag.name}>`;
      open.push(tag.name);
      continue;
    }
    const at = open.lastIndexOf(tag.name);
    if (at < 0) continue;
    while (open.length > at) out += `</${open.pop()!}>`;
  }
  flush();
  while (open.length) out += `</${open.pop()!}>`;
  return out;
}

/** The text of template HTML with every tag removed (for plain-text fields such as a title). */
export function stripTags(html: string): string {
  return sanitizeHtml(html)
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
