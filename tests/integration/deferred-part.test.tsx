import type { ReactNode } from 'react';
import { act, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { AppProviders } from '../../src/app/app';
import { setupStore } from '../../src/app/store';
import { RouteErrorBoundary } from '../../src/routes/errors/route-error-page';
import { deferredPart } from '../../src/components/ui/deferred-part';

function Dialog({ label }: { label: string }) {
  return <div role="dialog" aria-label={label} />;
}

/** A loader the test settles by hand. */
function manualLoad() {
  let settle: { resolve: (c: typeof Dialog) => void; reject: (e: unknown) => void } | null = null;
  const load = vi.fn(
    () =>
      new Promise<typeof Dialog>((resolve, reject) => {
        settle = { resolve, reject };
      }),
  );
  return { load, settle: () => settle! };
}

function renderPart(ui: ReactNode) {
  return render(
    <AppProviders store={setupStore()}>
      <MemoryRouter>
        <RouteErrorBoundary>{ui}</RouteErrorBoundary>
      </MemoryRouter>
    </AppProviders>,
  );
}

describe('deferredPart', () => {
  it('loads right after the first render and shows nothing until it is needed', async () => {
    const { load, settle } = manualLoad();
    const { Part } = deferredPart(load);
    const r = renderPart(<Part needed={false} label="scan" />);
    expect(load).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    await act(async () => settle().resolve(Dialog));
    expect(await screen.findByRole('dialog', { name: 'scan' })).toBeInTheDocument();
    r.unmount();
  });

  it('needed before its code is in: the loading status, then the part', async () => {
    const { load, settle } = manualLoad();
    const { Part } = deferredPart(load);
    renderPart(<Part needed label="auth" />);
    expect(await screen.findByRole('status')).toHaveTextContent('読み込み中…');
    await act(async () => settle().resolve(Dialog));
    expect(await screen.findByRole('dialog', { name: 'auth' })).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('a load that failed before it was needed is tried again when it is; a second failure reaches the error boundary', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const load = vi
      .fn<() => Promise<typeof Dialog>>()
      .mockRejectedValueOnce(new Error('offline'))
      .mockResolvedValueOnce(Dialog);
    const { Part } = deferredPart(load);
    const r = renderPart(<Part needed={false} label="marking" />);
    await act(async () => undefined);
    expect(load).toHaveBeenCalledTimes(1);
    r.rerender(
      <AppProviders store={setupStore()}>
        <MemoryRouter>
          <RouteErrorBoundary>
            <Part needed label="marking" />
          </RouteErrorBoundary>
        </MemoryRouter>
      </AppProviders>,
    );
    expect(await screen.findByRole('dialog', { name: 'marking' })).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);

    const failing = deferredPart<{ label: string }>(() => Promise.reject(new Error('gone')));
    renderPart(<failing.Part needed label="history" />);
    expect(await screen.findByText(/500/)).toBeInTheDocument();
    vi.restoreAllMocks();
  });
});
