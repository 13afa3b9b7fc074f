import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { renderWithProviders } from '../../../tests/render';
import PhonePage from './phone-page';

/**
 * /phone opened without a usable link (no code, no session of an earlier page): the page says why a link can be
 * refused, including an exam that is already over (the server's 410 phone_pairing_invalid says so too).
 */
describe('/phone without a usable link', () => {
  it('says the link may be used, expired, replaced, or its exam over (ja)', async () => {
    sessionStorage.clear();
    renderWithProviders(<PhonePage />, { route: '/phone', lang: 'ja' });
    const text = await screen.findByTestId('phone-invalid');
    expect(text).toHaveTextContent(
      '使用済み、有効期限切れ、新しいコードに置き換えられた、または試験が終了しています',
    );
    expect(text).toHaveTextContent('試験が続いている場合は');
  });

  it('says the same in English', async () => {
    sessionStorage.clear();
    renderWithProviders(<PhonePage />, { route: '/phone', lang: 'en' });
    const text = await screen.findByTestId('phone-invalid');
    expect(text).toHaveTextContent(
      'it was used already, has expired, was replaced by a newer code, or the exam is over',
    );
    expect(text).toHaveTextContent('If the exam is still going on');
  });
});
