import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../../../tests/render';
import type { Actor } from '../../../app/permissions';
import { Footer } from './footer';

const LINKS = { terms: '/terms', privacy: '/privacy', inquiry: '/inquiry' };

describe('Footer', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows terms, privacy and inquiry to a tester', () => {
    renderWithProviders(<Footer links={LINKS} />, { actor: 1 });
    expect(screen.getByRole('link', { name: /利用規約/ })).toHaveAttribute('href', '/terms');
    expect(screen.getByRole('link', { name: /プライバシーポリシー/ })).toHaveAttribute('href', '/privacy');
    expect(screen.getByRole('link', { name: /お問い合わせ/ })).toHaveAttribute('href', '/inquiry');
  });

  it.each([2, 3, 4, 5] as const)('shows only inquiry to actor %i', (actor: Actor) => {
    renderWithProviders(<Footer links={LINKS} />, { actor });
    expect(screen.queryByRole('link', { name: /利用規約/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /プライバシーポリシー/ })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: /お問い合わせ/ })).toBeInTheDocument();
  });

  it('shows only inquiry before login, with the copyright line and the note', () => {
    renderWithProviders(<Footer links={LINKS} />);
    expect(screen.getAllByRole('link')).toHaveLength(1);
    expect(screen.getByText(/Copyright ©/)).toBeInTheDocument();
  });

  it('opens a link in a new window (window.open keeps sessionStorage for the new page)', async () => {
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderWithProviders(<Footer links={LINKS} />, { actor: 1 });
    const link = screen.getByRole('link', { name: /利用規約/ });
    expect(link).toHaveAccessibleName('利用規約（新しいウィンドウで開きます）');
    await userEvent.click(link);
    expect(open).toHaveBeenCalledWith('/terms', 'terms');
  });
});
