import { SafeHtml } from '../../../components/ui/safe-html';
import type { TesterState } from '../tester-slice';
import { CHECK_BOX, CHECK_ROW } from '../../../components/ui/touch';

/**
 * A terms text (environment terms on PRE00002, exam notes on PRE00004) in a focusable scrolling region,
 * and the checkbox row that agrees to it; the whole label is the ≥44 px target.
 */
export function TermsAgreement({
  term,
  testId,
  checkboxId,
  texts,
  agreed,
  onAgreedChange,
  fixedHeight = false,
  busyWhileLoading = false,
}: {
  term: TesterState['envTerm'];
  /** data-testid of the region. */
  testId: string;
  /** The checkbox's id, which its label names. */
  checkboxId: string;
  /** The region's accessible name, the load-failure line, the text shown for an empty body, the label. */
  texts: { region: string; loadFailed: string; fallback: string; agree: string };
  agreed: boolean;
  onAgreedChange: (agreed: boolean) => void;
  /** The region is 300 px high; otherwise at most 300 px. */
  fixedHeight?: boolean;
  /** aria-busy on the region while the text loads. */
  busyWhileLoading?: boolean;
}) {
  const body = term.body.trim();
  return (
    <>
      <div
        className="border rounded p-3 bg-body-tertiary"
        style={fixedHeight ? { height: 300, overflowY: 'auto' } : { maxHeight: 300, overflowY: 'auto' }}
        tabIndex={0}
        role="region"
        aria-label={texts.region}
        data-testid={testId}
        aria-busy={busyWhileLoading ? term.status === 'loading' : undefined}
      >
        {term.status === 'failed' && <p className="text-danger">{texts.loadFailed}</p>}
        {body ? <SafeHtml html={body} /> : <p>{texts.fallback}</p>}
      </div>
      <label style={CHECK_ROW} className="mt-2" htmlFor={checkboxId}>
        <input
          id={checkboxId}
          type="checkbox"
          className="form-check-input"
          style={CHECK_BOX}
          checked={agreed}
          onChange={(e) => onAgreedChange(e.target.checked)}
        />
        {texts.agree}
      </label>
    </>
  );
}
