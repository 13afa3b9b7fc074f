import { screen } from '@testing-library/react';
import { renderWithProviders } from '../../../tests/render';
import IframePage from './iframe-page';
import RedirectPage from './redirect-page';
import { sameOriginPath } from './same-origin';

describe('redirect and iframe pages', () => {
  afterEach(() => vi.restoreAllMocks());

  it('sameOriginPath keeps only this site', () => {
    const o = 'https://app.example.com';
    expect(sameOriginPath('/exam?x=1#a', o)).toBe('/exam?x=1#a');
    expect(sameOriginPath('https://app.example.com/p', o)).toBe('/p');
    expect(sameOriginPath('https://evil.example.com/p', o)).toBeNull();
    expect(sameOriginPath('//evil.example.com/p', o)).toBeNull();
    expect(sameOriginPath('javascript:alert(1)', o)).toBeNull();
    expect(sameOriginPath('', o)).toBeNull();
  });

  it('opens a same-origin page in a child window', () => {
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderWithProviders(<RedirectPage />, { route: '/redirect?to=%2Fterms' });
    expect(open).toHaveBeenCalledWith('/terms', 'child');
    expect(screen.getByRole('status')).toHaveTextContent('新しいウィンドウでページを開きました。');
  });

  it('opens nothing for another site', () => {
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderWithProviders(<RedirectPage />, { route: '/redirect?to=https%3A%2F%2Fevil.example.com%2F' });
    expect(open).not.toHaveBeenCalled();
    expect(screen.getByText(/開けません/)).toBeInTheDocument();
  });

  it('embeds a same-origin page in a titled iframe', () => {
    renderWithProviders(<IframePage />, { route: '/iframe?src=%2Fprivacy' });
    expect(screen.getByTitle('埋め込まれたページ')).toHaveAttribute('src', '/privacy');
  });

  it('embeds nothing from another site', () => {
    renderWithProviders(<IframePage />, { route: '/iframe?src=https%3A%2F%2Fevil.example.com%2F' });
    expect(screen.queryByTitle('埋め込まれたページ')).not.toBeInTheDocument();
  });
});
