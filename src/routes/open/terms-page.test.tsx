import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderWithProviders } from '../../../tests/render';
import { server } from '../../../tests/msw/server';
import type { RootState } from '../../app/store';
import { defaultStartupParams } from '../../features/startup/startup-fields';
import { ModalHost } from '../../features/layout/components/modal-host';
import TermsPage from './terms-page';
import InquiryPage from './inquiry-page';

const template = (id: number, body: string, footer = '') => ({
  template_id: id,
  title: 'T',
  template_body: body,
  template_footer_url: footer,
  updated_at: '2024-01-01T00:00:00Z',
});

function startup(params: Partial<ReturnType<typeof defaultStartupParams>>): Partial<RootState> {
  return {
    startup: {
      status: 'done',
      serverTime: null,
      clockOffsetMs: 0,
      params: { ...defaultStartupParams(), ...params },
    },
  };
}

describe('terms, privacy and inquiry pages', () => {
  it('loads the template of the start-up parameter in the user language and renders safe HTML only', async () => {
    let query: URLSearchParams | null = null;
    server.use(
      http.get('*/api/v1/get_terms_of_service.php', ({ request }) => {
        query = new URL(request.url).searchParams;
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: template(
            7,
            '<h2>第1条</h2><p onclick="x()">本文<strong>重要</strong><a href="javascript:x">リンク</a></p><script>alert(1)</script><img src=x onerror=alert(1)>',
          ),
        });
      }),
    );
    const { container } = renderWithProviders(<TermsPage />, {
      preloadedState: startup({ termsOfServiceTemplate: 7 }),
    });
    expect(await screen.findByRole('heading', { level: 2, name: '第1条' })).toBeInTheDocument();
    expect(query!.get('template_id')).toBe('7');
    expect(query!.get('lang')).toBe('ja');
    expect(screen.getByRole('heading', { level: 1, name: '利用規約' })).toBeInTheDocument();
    expect(screen.getByText('重要').tagName).toBe('STRONG');
    expect(screen.getByText(/リンク/)).toBeInTheDocument();
    expect(container.querySelector('a[href^="javascript"], script, img, [onclick]')).toBeNull();
  });

  it('on a load failure shows the failure text in a modal and the default template (id -1)', async () => {
    const ids: string[] = [];
    server.use(
      http.get('*/api/v1/get_terms_of_service.php', ({ request }) => {
        const id = new URL(request.url).searchParams.get('template_id') ?? '';
        ids.push(id);
        if (id === '-1')
          return HttpResponse.json({ status: 200, message: 'OK', result: template(0, '<p>既定の規約</p>') });
        return HttpResponse.json({ status: 500, message: 'db down', result: null }, { status: 500 });
      }),
    );
    renderWithProviders(
      <>
        <TermsPage />
        <ModalHost />
      </>,
      { preloadedState: startup({ termsOfServiceTemplate: 12 }) },
    );
    const dialog = await screen.findByRole('dialog');
    expect(
      within(dialog).getByText('利用規約の読み込みに失敗しました。既定の内容を表示します。'),
    ).toBeInTheDocument();
    expect(await screen.findByText('既定の規約')).toBeInTheDocument();
    expect(ids).toEqual(['12', '-1']);
  });

  it('links to the footer URL when the body is empty', async () => {
    server.use(
      http.get('*/api/v1/get_inquiry.php', () =>
        HttpResponse.json({
          status: 200,
          message: 'OK',
          result: template(0, '', 'https://support.example.com/form'),
        }),
      ),
    );
    renderWithProviders(<InquiryPage />);
    const link = await screen.findByRole('link', { name: /こちらのページをご覧ください/ });
    expect(link).toHaveAttribute('href', 'https://support.example.com/form');
  });

  it('does not link to a footer URL that is not http(s)', async () => {
    server.use(
      http.get('*/api/v1/get_inquiry.php', () =>
        HttpResponse.json({ status: 200, message: 'OK', result: template(0, '', 'javascript:alert(1)') }),
      ),
    );
    renderWithProviders(<InquiryPage />);
    expect(await screen.findByText('表示する内容がありません。')).toBeInTheDocument();
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
  });

  it('turns the loading overlay counter back to 0', async () => {
    server.use(
      http.get('*/api/v1/get_inquiry.php', () =>
        HttpResponse.json({ status: 200, message: 'OK', result: template(0, '<p>x</p>') }),
      ),
    );
    const { store } = renderWithProviders(<InquiryPage />);
    await screen.findByText('x');
    await waitFor(() => expect(store.getState().layout.loadingCount).toBe(0));
  });
});
