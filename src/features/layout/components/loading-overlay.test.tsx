import { act, screen } from '@testing-library/react';
import { renderWithProviders } from '../../../../tests/render';
import { loadingFinished, loadingStarted, uploadFinished, uploadStarted } from '../layout-slice';
import { LoadingOverlay } from './loading-overlay';
import { UploadAlert } from './upload-alert';

describe('LoadingOverlay and UploadAlert', () => {
  it('shows the overlay while the loading counter is above 0', () => {
    const { store } = renderWithProviders(<LoadingOverlay />);
    expect(screen.queryByTestId('loading-overlay')).not.toBeInTheDocument();
    act(() => {
      store.dispatch(loadingStarted());
      store.dispatch(loadingStarted());
    });
    const overlay = screen.getByRole('status');
    expect(overlay).toHaveAttribute('aria-busy', 'true');
    expect(overlay).toHaveTextContent('読み込み中…');
    act(() => store.dispatch(loadingFinished()));
    expect(screen.getByTestId('loading-overlay')).toBeInTheDocument();
    act(() => store.dispatch(loadingFinished()));
    expect(screen.queryByTestId('loading-overlay')).not.toBeInTheDocument();
    act(() => store.dispatch(loadingFinished())); // never below 0
    act(() => store.dispatch(loadingStarted()));
    expect(screen.getByTestId('loading-overlay')).toBeInTheDocument();
  });

  it('shows the upload alert while the upload counter is above 0', () => {
    const { store } = renderWithProviders(<UploadAlert />);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    act(() => store.dispatch(uploadStarted()));
    expect(screen.getByRole('status')).toHaveTextContent('アップロード');
    act(() => store.dispatch(uploadFinished()));
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
