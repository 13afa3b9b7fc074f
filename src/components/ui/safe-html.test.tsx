import { render } from '@testing-library/react';
import { SafeHtml } from './safe-html';

describe('SafeHtml', () => {
  it('keeps only p, h2, h3, ol, ul, li, strong, br and text, without attributes', () => {
    const { container } = render(
      <SafeHtml
        html={
          '<h2 class="x">A</h2><div><p style="color:red">B<br>C</p></div><ol><li>1</li></ol><ul><li><em>2</em></li></ul><h1>H</h1><style>p{}</style><iframe src="x"></iframe><p><a href="https://e.com" onclick="alert(1)">L</a></p>'
        }
      />,
    );
    const root = container.firstElementChild!;
    expect(root.innerHTML).toBe('<h2>A</h2><p>B<br>C</p><ol><li>1</li></ol><ul><li>2</li></ul>H<p>L</p>');
  });

  it('renders nothing for an empty body', () => {
    const { container } = render(<SafeHtml html="" />);
    expect(container.firstElementChild!.childNodes).toHaveLength(0);
  });
});
