import { http, HttpResponse } from 'msw';
import { server } from '../../tests/msw/server';
import { getFooterTemplate } from './templates';

describe('templates api', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['termsOfService', 'get_terms_of_service'],
    ['privacyPolicy', 'get_privacy_policy'],
    ['inquiry', 'get_inquiry'],
  ] as const)('%s GETs %s with template_id and lang, camelCase result', async (kind, endpoint) => {
    let q: URLSearchParams | null = null;
    server.use(
      http.get(`*/api/v1/${endpoint}.php`, ({ request }) => {
        q = new URL(request.url).searchParams;
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            template_id: 3,
            title: 't',
            template_body: '<p>b</p>',
            template_footer_url: '',
            updated_at: 'u',
          },
        });
      }),
    );
    await expect(getFooterTemplate(kind, 3, 'en')).resolves.toEqual({
      templateId: 3,
      title: 't',
      templateBody: '<p>b</p>',
      templateFooterUrl: '',
      updatedAt: 'u',
    });
    expect(q!.get('template_id')).toBe('3');
    expect(q!.get('lang')).toBe('en');
  });

  it('raises an error when the body is not a string (spec §5)', async () => {
    server.use(
      http.get('*/api/v1/get_inquiry.php', () =>
        HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { template_id: 3, template_body: 42, template_footer_url: '' },
        }),
      ),
    );
    await expect(getFooterTemplate('inquiry', 3, 'ja')).rejects.toThrow(/strings/);
  });
});
