import { useTranslation } from 'react-i18next';
import Pagination from 'react-bootstrap/Pagination';

/** Pages from 1: first, previous, a window of page numbers, next, last. */
export function Pager({
  page,
  pageCount,
  label,
  onPage,
}: {
  page: number;
  pageCount: number;
  label: string;
  onPage: (page: number) => void;
}) {
  const { t } = useTranslation('common');
  if (pageCount <= 1) return null;
  const from = Math.max(1, page - 2);
  const to = Math.min(pageCount, from + 4);
  const pages: number[] = [];
  for (let p = from; p <= to; p += 1) pages.push(p);
  return (
    <nav aria-label={label}>
      <Pagination size="sm">
        <Pagination.First disabled={page <= 1} onClick={() => onPage(1)} aria-label={t('pager.first')} />
        <Pagination.Prev disabled={page <= 1} onClick={() => onPage(page - 1)} aria-label={t('pager.prev')} />
        {pages.map((p) => (
          <Pagination.Item
            key={p}
            active={p === page}
            onClick={() => onPage(p)}
            aria-label={t('pager.page', { page: p })}
          >
            {p}
          </Pagination.Item>
        ))}
        <Pagination.Next
          disabled={page >= pageCount}
          onClick={() => onPage(page + 1)}
          aria-label={t('pager.next')}
        />
        <Pagination.Last
          disabled={page >= pageCount}
          onClick={() => onPage(pageCount)}
          aria-label={t('pager.last')}
        />
      </Pagination>
    </nav>
  );
}
