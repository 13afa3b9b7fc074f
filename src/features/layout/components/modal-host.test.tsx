import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../../../tests/render';
import { confirm, showAlert } from '../layout-thunks';
import { ModalHost } from './modal-host';

describe('ModalHost', () => {
  it.each([
    ['success', '成功'],
    ['caution', '注意'],
    ['error', 'エラー'],
  ] as const)(
    'shows a %s alert with its default title; Esc and the backdrop do not close it',
    async (type, title) => {
      const { store } = renderWithProviders(<ModalHost />);
      let closed = false;
      act(() => {
        void store.dispatch(showAlert({ type, messageKey: 'errors:internal' })).then(() => {
          closed = true;
        });
      });
      const dialog = await screen.findByRole('dialog');
      expect(dialog).toHaveAccessibleName(title);
      expect(dialog).toHaveTextContent('システムエラーが発生しました。');
      expect(document.getElementById('global-alert')).not.toBeNull();

      await act(async () => {
        fireEvent.keyDown(dialog, { key: 'Escape', code: 'Escape', keyCode: 27 });
        fireEvent.keyDown(document, { key: 'Escape', code: 'Escape', keyCode: 27 });
        fireEvent.click(dialog); // the backdrop area (static: bounces, stays)
        await new Promise((r) => setTimeout(r, 400));
      });
      expect(screen.getByRole('dialog')).toBeInTheDocument();
      expect(store.getState().layout.modals).toHaveLength(1);
      expect(closed).toBe(false);

      await userEvent.click(screen.getByRole('button', { name: '閉じる' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
      await waitFor(() => expect(closed).toBe(true));
      expect(store.getState().layout.modals).toHaveLength(0);
    },
  );

  it('shows server text as-is and a custom title key', async () => {
    const { store } = renderWithProviders(<ModalHost />);
    act(
      () =>
        void store.dispatch(
          showAlert({ type: 'caution', messageText: 'サーバーの文言', titleKey: 'layout:modal.confirm' }),
        ),
    );
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveAccessibleName('確認');
    expect(dialog).toHaveTextContent('サーバーの文言');
  });

  it('shows queued alerts one after another', async () => {
    const { store } = renderWithProviders(<ModalHost />);
    act(() => {
      void store.dispatch(showAlert({ type: 'error', messageText: 'first' }));
      void store.dispatch(showAlert({ type: 'error', messageText: 'second' }));
    });
    expect(await screen.findByRole('dialog')).toHaveTextContent('first');
    await userEvent.click(screen.getByRole('button', { name: '閉じる' }));
    await waitFor(() => expect(screen.getByRole('dialog')).toHaveTextContent('second'));
  });

  it('resolves a confirm with true for OK and false for Cancel', async () => {
    const { store } = renderWithProviders(<ModalHost />);
    let answer: boolean | null = null;
    act(() => void store.dispatch(confirm({ messageKey: 'common:next' })).then((a) => (answer = a)));
    expect(await screen.findByRole('dialog')).toHaveAccessibleName('確認');
    expect(document.getElementById('global-confirm')).not.toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(answer).toBe(true));

    act(() => void store.dispatch(confirm({ messageKey: 'common:next' })).then((a) => (answer = a)));
    await screen.findByRole('dialog');
    await userEvent.click(screen.getByRole('button', { name: 'キャンセル' }));
    await waitFor(() => expect(answer).toBe(false));
  });
});
