import { sanitizeHtml, stripTags } from '../src/lib/html-sanitize';

describe('sanitizeHtml', () => {
  it.each([
    ['<p>Hello <strong>world</strong></p>', '<p>Hello <strong>world</strong></p>'],
    ['<h2 class="x" onclick="alert(1)">T</h2><h3 id=a>U</h3>', '<h2>T</h2><h3>U</h3>'],
    ['<ol><li>a<ul><li>b</li></ul></li></ol>', '<ol><li>a<ul><li>b</li></ul></li></ol>'],
    ['a<br>b<br/>c<BR />d</br>', 'a<br>b<br>c<br>d'],
    ['<p>x<script>alert(1)</script>y</p>', '<p>xy</p>'],
    ['<style>p{}</style><p>z</p>', '<p>z</p>'],
    ['<SCRIPT type="a>b">bad()</script >ok', 'ok'],
    ['<script>never closed <p>gone</p>', ''],
    ['<a href="javascript:alert(1)">link</a>', 'link'],
    ['<img src=x onerror=alert(1)>text', 'text'],
    ['<div><span style="color:red">t</span></div>', 't'],
    ['<p title="a > b">q</p>', '<p>q</p>'],
    ['<!-- c --><p>v</p><!doctype html>', '<p>v</p>'],
    ['1 < 2 and 3 > 2 & 4', '1 &lt; 2 and 3 &gt; 2 &amp; 4'],
    ['&amp; &#38; &#x26; &copy; &bogus', '&amp; &#38; &#x26; &copy; &amp;bogus'],
    ['<p>unclosed <strong>bold', '<p>unclosed <strong>bold</strong></p>'],
    ['</p>stray</li><p>ok</p>', 'stray<p>ok</p>'],
    ['<p><strong>a</p>b', '<p><strong>a</strong></p>b'],
    ['<p>cut <strong', '<p>cut </p>'],
    ['<iframe src="//evil"></iframe><svg><script>x</script></svg>safe', 'safe'],
    ['<p onmouseover=alert(1)//>x</p>', '<p>x</p>'],
    ['< p>not a tag</p>', '&lt; p&gt;not a tag'],
    ['<<p>>', '&lt;<p>&gt;</p>'],
    ['a\u0000b', 'ab'],
  ])('%j → %j', (input, expected) => {
    expect(sanitizeHtml(input)).toBe(expected);
  });

  it('is idempotent', () => {
    const once = sanitizeHtml('<p a=1>x <b>y</b> & <script>z</script><li>w');
    expect(sanitizeHtml(once)).toBe(once);
  });

  it('strips tags for plain-text fields', () => {
    expect(stripTags('<b>Terms</b> &amp; <script>x</script>conditions')).toBe('Terms & conditions');
  });
});
