import { lazy, Suspense, useEffect } from 'react';
import { useAppSelector } from '../../../app/hooks';
import { selectTopModal } from '../layout-slice';

const loadGlobalModal = () => import('./global-modal');
const GlobalModal = lazy(() => loadGlobalModal().then((m) => ({ default: m.GlobalModal })));

/**
 * Shows the first queued alert or confirm modal (layout.modals[0]); the next one shows when it closes. The
 * modal code (react-bootstrap's Modal and its transitions) is not needed for a page's first render, so it
 * loads right after it: ready before an alert can come, even one about a network that has gone since.
 */
export function ModalHost() {
  const modal = useAppSelector(selectTopModal);
  useEffect(() => {
    void loadGlobalModal();
  }, []);
  if (!modal) return null;
  return (
    <Suspense fallback={null}>
      <GlobalModal key={modal.id} modal={modal} />
    </Suspense>
  );
}
