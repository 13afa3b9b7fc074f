import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** A window as window.open returns it: its address (blank for a new one) and close(). */
function fakeWindow(href: string) {
  return {
    closed: false,
    location: { href },
    close: vi.fn(function (this: { closed: boolean }) {
      this.closed = true;
    }),
  };
}

/** The module as a freshly loaded page has it (a reload): no handle on any window. */
const load = async () => {
  vi.resetModules();
  return import('./exam-window');
};

describe('the exam window across a reload', () => {
  beforeEach(() => sessionStorage.clear());
  afterEach(() => vi.restoreAllMocks());

  it('a reloaded page closes the exam window its earlier page opened, reached by its name', async () => {
    const exam = fakeWindow('https://exam.example.org/test');
    const open = vi.spyOn(window, 'open').mockReturnValue(exam as unknown as Window);
    const before = await load();
    expect(before.openExamWindow('https://exam.example.org/test')).toBe(true);

    const after = await load();
    open.mockClear();
    after.closeExamWindow();
    expect(open).toHaveBeenCalledWith('', after.EXAM_WINDOW_NAME);
    expect(exam.close).toHaveBeenCalled();
    // Closed once: a later close does not look for it again.
    open.mockClear();
    after.closeExamWindow();
    expect(open).not.toHaveBeenCalled();
  });

  it('does not open anything when no earlier page opened one, and closes the blank window naming a gone one opens', async () => {
    const open = vi.spyOn(window, 'open');
    const fresh = await load();
    fresh.closeExamWindow();
    expect(open).not.toHaveBeenCalled();

    const exam = fakeWindow('https://exam.example.org/test');
    open.mockReturnValue(exam as unknown as Window);
    fresh.openExamWindow('https://exam.example.org/test');
    // The person closed the exam window themselves, then the page was reloaded.
    const blank = fakeWindow('about:blank');
    open.mockReturnValue(blank as unknown as Window);
    const after = await load();
    after.closeExamWindow();
    expect(blank.close).toHaveBeenCalled();
  });
});
