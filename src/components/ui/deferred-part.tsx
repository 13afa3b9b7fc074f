import { lazy, Suspense, useEffect, useState, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { addTexts, type JapaneseTexts } from '../../i18n';

/** Stands where a part is needed while its code is still loading (rare: it loads right after the page). */
export function PartLoading() {
  const { t } = useTranslation();
  return (
    <p className="small text-body-secondary" role="status" aria-live="polite">
      <span className="spinner-border spinner-border-sm me-2" aria-hidden="true" />
      {t('loading')}
    </p>
  );
}

/** The part, with `needed`: whether what it shows is wanted now (a dialog open, a step reached). */
export type DeferredProps<P> = P & { needed: boolean };

/**
 * A part of a page that its first render does not show (a dialog, a later step): its code is a chunk of its
 * own, fetched right after the page's first render, so the page does not wait for it and it is there before
 * anyone can ask for it. `needed` says whether it must show now: until its code is in, a needed part shows
 * the loading status, and a part that is not needed shows nothing. The part's state lives in the store, so
 * the action that opens it (a click, a message) is not lost while it loads. A chunk that fails to load is
 * fetched again when the part is needed, and a second failure reaches the route's error boundary (the
 * one-time reload of spec §8), never a blank.
 */
export function deferredPart<P extends object>(
  load: () => Promise<ComponentType<P>>,
): { Part: ComponentType<DeferredProps<P>>; preload: () => Promise<ComponentType<P>> } {
  let pending: Promise<ComponentType<P>> | null = null;
  let loaded = false;
  const preload = () =>
    (pending ??= load().then(
      (component) => {
        loaded = true;
        return component;
      },
      (e: unknown) => {
        pending = null;
        throw e;
      },
    ));
  const Lazy = lazy(() => preload().then((component) => ({ default: component })));

  function Part({ needed, ...props }: DeferredProps<P>) {
    const [ready, setReady] = useState(loaded);
    useEffect(() => {
      if (ready) return;
      let live = true;
      preload().then(
        () => {
          if (live) setReady(true);
        },
        // Not needed yet: the failure shows when it is (the lazy component loads again then).
        () => undefined,
      );
      return () => {
        live = false;
      };
    }, [ready]);
    if (!needed && !ready) return null;
    return (
      <Suspense fallback={needed ? <PartLoading /> : null}>
        <Lazy {...(props as P)} />
      </Suspense>
    );
  }
  return { Part, preload };
}

/**
 * A part's code and the texts it shows, loaded together: the part is ready once both are (its Japanese texts
 * are a chunk of their own, its English ones load on an English page), so it never shows a key.
 */
export function withTexts<C>(part: Promise<C>, texts: Promise<JapaneseTexts>): Promise<C> {
  return Promise.all([part, texts.then((t) => addTexts(t))]).then(([c]) => c);
}
