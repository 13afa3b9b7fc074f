import Button from 'react-bootstrap/Button';

/**
 * A sortable column header: a button inside <th aria-sort>. Clicking the active column flips the order
 * (0 descending, 1 ascending); another column starts descending.
 */
export function SortHeader<K extends number | string>({
  label,
  sortKey,
  activeKey,
  order,
  onSort,
  sortHint,
}: {
  label: string;
  sortKey: K;
  activeKey: K;
  order: 0 | 1;
  onSort: (key: K, order: 0 | 1) => void;
  /** Accessible description of the action, e.g. "sort". */
  sortHint: string;
}) {
  const active = sortKey === activeKey;
  const ariaSort = active ? (order === 1 ? 'ascending' : 'descending') : 'none';
  return (
    <th scope="col" aria-sort={ariaSort}>
      <Button
        variant="link"
        className="p-0 text-reset text-decoration-none fw-bold"
        title={sortHint}
        onClick={() => onSort(sortKey, active ? (order === 1 ? 0 : 1) : 0)}
      >
        {label}
        <span aria-hidden="true">{active ? (order === 1 ? ' ▲' : ' ▼') : ' ⇅'}</span>
      </Button>
    </th>
  );
}
