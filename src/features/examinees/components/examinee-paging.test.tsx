import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderWithProviders } from '../../../../tests/render';
import { ok, server } from '../../../../tests/msw/server';
import { ExamineeSearchForm } from './examinee-search-form';
import { ExamineeResultTable } from './examinee-result-table';

const CONDITIONS = {
  groups: [],
  test_names: [],
  regions: [],
  records: [],
  with_marks: [],
  marks: [],
  cheating_level: [],
  ai_analysis_flag: [],
  times: [],
};

/**
 * A testers.php over `total` rows (`exam_name` "row <i>" in the sort order) that pages by number and by a
 * cursor `<sort_key>:<index>` like the reference server: `skip_count=1` leaves the count fields null. With
 * `capped` it answers the count as the server does above 10,000 matches. Every request's parameters are kept.
 */
function fakeServer(opts: { total: number; capped?: boolean; cursors?: boolean; badCursor?: boolean }) {
  const requests: URLSearchParams[] = [];
  server.use(
    ok('testers/conditions', CONDITIONS, 'get'),
    http.get('*/api/v1/testers.php', ({ request }) => {
      const q = new URL(request.url).searchParams;
      requests.push(q);
      const per = Number(q.get('max_display_count'));
      const page = Number(q.get('page'));
      const sortKey = q.get('sort_key');
      const cursor = q.get('cursor');
      if (cursor && opts.badCursor) {
        return HttpResponse.json(
          { status: 400, message: 'cursor is not valid', code: 'validation', result: { field: 'cursor' } },
          { status: 400 },
        );
      }
      let start = (page - 1) * per;
      if (cursor) {
        const [key, index] = cursor.split(':');
        expect(key).toBe(sortKey);
        start = Number(index);
      }
      const shown = opts.capped ? 10_000 : opts.total;
      const rows = [];
      for (let i = start; i < Math.min(opts.total, start + per); i++) {
        rows.push({
          test_id: i + 1,
          group: 'G',
          group_id: 1,
          test_name: 'T',
          region: 'R',
          test_at: null,
          stop_at: null,
          exam_name: `row ${i + 1} by ${sortKey}`,
          with_mark: 0,
          record: 0,
          user_id: i + 1,
          login_id: `l${i + 1}`,
          cheating_level: 0,
          total_score: 0,
          pass: null,
        });
      }
      const skip = q.get('skip_count') === '1' && opts.cursors !== false;
      return HttpResponse.json({
        status: 200,
        message: 'OK',
        result: {
          count: skip ? null : shown,
          count_capped: skip ? null : !!opts.capped,
          page_count: skip ? null : Math.ceil(shown / per),
          page,
          max_display_count: per,
          testers: rows,
          ...(opts.cursors === false
            ? {}
            : { next_cursor: start + per < opts.total ? `${sortKey}:${start + per}` : null }),
        },
      });
    }),
  );
  return requests;
}

function renderSearch() {
  return renderWithProviders(
    <>
      <ExamineeSearchForm />
      <ExamineeResultTable detailHref={(id) => `/examinees/${id}`} analysisHref="/analysis-request" />
    </>,
    { actor: 4 },
  );
}

// Labels rather than roles: role queries over a 50-row table are slow in jsdom.
const pager = () => within(screen.getByLabelText('検索結果のページ'));
const click = (name: string) => fireEvent.click(pager().getByLabelText(name));
async function showsRow(n: number) {
  expect(await screen.findByText(new RegExp(`^row ${n} by`))).toBeInTheDocument();
}
/** The page the pager marks as the current one. */
const expectCurrent = (n: number) =>
  expect(pager().getByLabelText(`${n}ページ`).closest('li')).toHaveClass('active');
const sent = (q: URLSearchParams | undefined) => ({
  page: q?.get('page'),
  cursor: q?.get('cursor') ?? null,
  skipCount: q?.get('skip_count') ?? null,
});

// Each case walks several pages through the real store and MSW; allow for a slow shared machine.
const SLOW = 30_000;

describe('/examinees paging: cursors for next/previous, page numbers for jumps', () => {
  it(
    'reads next and previous pages after remembered cursors and keeps the count on screen',
    async () => {
      const requests = fakeServer({ total: 230 });
      renderSearch();
      fireEvent.click(screen.getByRole('button', { name: '検索' }));
      await showsRow(1);
      expect(screen.getByText('230件')).toBeInTheDocument();
      expect(sent(requests.at(-1))).toEqual({ page: '1', cursor: null, skipCount: null });

      click('次のページ');
      await showsRow(51);
      expect(sent(requests.at(-1))).toEqual({ page: '2', cursor: '4:50', skipCount: '1' });
      click('次のページ');
      await showsRow(101);
      expect(sent(requests.at(-1))).toEqual({ page: '3', cursor: '4:100', skipCount: '1' });
      expectCurrent(3);
      // The count and the pages stay those of the counted first answer.
      expect(screen.getByText('230件')).toBeInTheDocument();
      expect(pager().getByLabelText('5ページ')).toBeInTheDocument();

      click('前のページ');
      await showsRow(51);
      expect(sent(requests.at(-1))).toEqual({ page: '2', cursor: '4:50', skipCount: '1' });

      // A jump to the last page goes by number, counted (second half of an exact count: read from the end).
      click('最後のページ');
      await showsRow(201);
      expect(sent(requests.at(-1))).toEqual({ page: '5', cursor: null, skipCount: null });
      // Page 4 starts at a cursor learnt from page 3.
      click('前のページ');
      await showsRow(151);
      expect(sent(requests.at(-1))).toEqual({ page: '4', cursor: '4:150', skipCount: '1' });
      // Back to the first page: by number, not counted again.
      click('最初のページ');
      await showsRow(1);
      expect(sent(requests.at(-1))).toEqual({ page: '1', cursor: null, skipCount: '1' });
      expect(screen.getByText('230件')).toBeInTheDocument();
    },
    SLOW,
  );

  it(
    'forgets the cursors when the sort or the display count changes',
    async () => {
      const requests = fakeServer({ total: 230 });
      renderSearch();
      fireEvent.click(screen.getByRole('button', { name: '検索' }));
      await showsRow(1);
      click('次のページ');
      await showsRow(51);

      fireEvent.click(within(screen.getByRole('table')).getByRole('button', { name: /スコア/ }));
      await waitFor(() => expect(requests.at(-1)?.get('sort_key')).toBe('7'));
      expect(sent(requests.at(-1))).toEqual({ page: '1', cursor: null, skipCount: null });
      await screen.findByText('row 1 by 7');
      click('次のページ');
      await screen.findByText('row 51 by 7');
      expect(sent(requests.at(-1))).toEqual({ page: '2', cursor: '7:50', skipCount: '1' });

      fireEvent.change(screen.getByLabelText('表示件数'), { target: { value: '100' } });
      await waitFor(() => expect(requests.at(-1)?.get('max_display_count')).toBe('100'));
      expect(sent(requests.at(-1))).toEqual({ page: '1', cursor: null, skipCount: null });
      await screen.findByText('row 1 by 7');
      // 230 rows by 100: pages 1–3; page 2 by its new cursor.
      expect(pager().queryByLabelText('4ページ')).not.toBeInTheDocument();
      click('次のページ');
      await screen.findByText('row 101 by 7');
      expect(sent(requests.at(-1))).toEqual({ page: '2', cursor: '7:100', skipCount: '1' });
    },
    SLOW,
  );

  it(
    'jumps on a capped count by number without counting again, and still shows "10000 or more"',
    async () => {
      const requests = fakeServer({ total: 12_000, capped: true });
      renderSearch();
      fireEvent.click(screen.getByRole('button', { name: '検索' }));
      await showsRow(1);
      expect(screen.getByText('10000件以上')).toBeInTheDocument();
      click('最後のページ');
      await showsRow(9951);
      expect(sent(requests.at(-1))).toEqual({ page: '200', cursor: null, skipCount: '1' });
      expect(screen.getByText('10000件以上')).toBeInTheDocument();
      expectCurrent(200);
    },
    SLOW,
  );

  it(
    'pages by number against a server without cursors',
    async () => {
      const requests = fakeServer({ total: 230, cursors: false });
      renderSearch();
      fireEvent.click(screen.getByRole('button', { name: '検索' }));
      await showsRow(1);
      click('次のページ');
      await showsRow(51);
      expect(sent(requests.at(-1))).toEqual({ page: '2', cursor: null, skipCount: '1' });
      expect(screen.getByText('230件')).toBeInTheDocument();
      expectCurrent(2);
    },
    SLOW,
  );

  it(
    'reads the page by number when the server refuses a cursor',
    async () => {
      const requests = fakeServer({ total: 230, badCursor: true });
      renderSearch();
      fireEvent.click(screen.getByRole('button', { name: '検索' }));
      await showsRow(1);
      click('次のページ');
      await showsRow(51);
      expect(requests.slice(-2).map(sent)).toEqual([
        { page: '2', cursor: '4:50', skipCount: '1' },
        { page: '2', cursor: null, skipCount: null },
      ]);
      expect(screen.queryByText('受験者の検索に失敗しました。')).not.toBeInTheDocument();
    },
    SLOW,
  );
});
