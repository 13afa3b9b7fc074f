import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderWithProviders } from '../../../tests/render';
import { ok, server } from '../../../tests/msw/server';
import { ModalHost } from '../../features/layout/components/modal-host';
import EditTermsPage from './edit-terms-page';

const stored = (over: Record<string, unknown> = {}) => ({
  kind: 'terms_of_service',
  template_id: 0,
  lang: 'ja',
  title: '利用規約',
  body: '<h2>第1条</h2><p>本文</p>',
  footer_url: '',
  updated_at: '2031-01-01T00:00:00.000Z',
  ...over,
});

const page = () =>
  renderWithProviders(
    <>
      <EditTermsPage />
      <ModalHost />
    </>,
    { actor: 4 },
  );

describe('/edit-terms', () => {
  it('loads the selected template, previews the sanitised body and saves it', async () => {
    let posted: Record<string, unknown> | null = null;
    server.use(
      ok('templates/list', { list: [stored(), stored({ lang: 'en', title: 'Terms of use' })] }, 'get'),
      http.post('*/api/v1/templates/save.php', async ({ request }) => {
        posted = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: stored({
            lang: 'en',
            title: 'New terms',
            body: '<p>Safe</p>',
            updated_at: '2031-02-01T00:00:00.000Z',
          }),
        });
      }),
    );
    page();
    expect(await screen.findByDisplayValue('利用規約')).toBeInTheDocument();
    expect(screen.getByTestId('terms-preview').querySelector('h2')).toHaveTextContent('第1条');
    fireEvent.change(screen.getByLabelText('言語'), { target: { value: 'en' } });
    expect(await screen.findByDisplayValue('Terms of use')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('タイトル'), { target: { value: 'New terms' } });
    fireEvent.change(screen.getByLabelText('本文（HTML）'), {
      target: { value: '<p onclick="x()">Safe</p><script>bad()</script>' },
    });
    const preview = screen.getByTestId('terms-preview');
    expect(preview.querySelector('script')).toBeNull();
    expect(preview.querySelector('p')?.getAttribute('onclick')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('テンプレートを保存しました。')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('本文（HTML）')).toHaveValue('<p>Safe</p>'));
    expect(posted).toMatchObject({
      kind: 'terms_of_service',
      template_id: 0,
      lang: 'en',
      title: 'New terms',
    });
  });

  it('checks the form, shows a new combination, and shows server failures', async () => {
    server.use(
      ok('templates/list', { list: [stored()] }, 'get'),
      http.post('*/api/v1/templates/save.php', () =>
        HttpResponse.json(
          {
            status: 400,
            message: 'フッターURLはhttps://example.comの形式でなければなりません。',
            result: { field: 'footer_url' },
          },
          { status: 400 },
        ),
      ),
    );
    page();
    expect(await screen.findByDisplayValue('利用規約')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('種類'), { target: { value: 'inquiry' } });
    expect(await screen.findByText(/この組み合わせは未登録です/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('タイトルを入力してください。')).toBeInTheDocument();
    expect(screen.getByText('本文（HTML）を入力してください。')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('タイトル'), { target: { value: 'お問い合わせ' } });
    fireEvent.change(screen.getByLabelText('本文（HTML）'), { target: { value: '<p>連絡先</p>' } });
    fireEvent.change(screen.getByLabelText('フッターURL'), { target: { value: 'ftp://x' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(
      await screen.findByText('フッターURLはhttps://example.comの形式でなければなりません。'),
    ).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('フッターURL'), { target: { value: 'https://example.com/q' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('テンプレートの保存に失敗しました。')).toBeInTheDocument();
    expect(
      await screen.findAllByText('フッターURLはhttps://example.comの形式でなければなりません。'),
    ).not.toHaveLength(0);
  });
});
