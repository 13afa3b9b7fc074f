import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../monitoring-format';

export interface ExamineeImage {
  url: string | null;
  updatedAt: string | null;
}

/** Head shot and ID card with their last-updated times. */
export function ExamineeImages({
  name,
  headShot,
  idCard,
  size = 96,
}: {
  name: string;
  headShot: ExamineeImage;
  idCard: ExamineeImage;
  size?: number;
}) {
  const { t } = useTranslation('monitoring');
  const items = [
    { kind: t('images.headShot'), img: headShot, testId: 'head-shot' },
    { kind: t('images.idCard'), img: idCard, testId: 'id-card' },
  ];
  return (
    <div className="d-flex gap-2 flex-wrap">
      {items.map(({ kind, img, testId }) => (
        <figure key={testId} className="mb-0 text-center" data-testid={testId}>
          {img.url ? (
            <img
              src={img.url}
              alt={t('images.alt', { name, kind })}
              style={{ width: size, height: size, objectFit: 'cover' }}
              className="rounded border"
            />
          ) : (
            <div
              className="d-flex align-items-center justify-content-center border rounded text-body-secondary small"
              style={{ width: size, height: size }}
            >
              {t('images.none')}
            </div>
          )}
          <figcaption className="small">
            <div>{kind}</div>
            <div className="text-body-secondary">
              {img.updatedAt
                ? t('images.updatedAt', { time: formatDateTime(img.updatedAt) })
                : img.url
                  ? t('images.updatedUnknown')
                  : ''}
            </div>
          </figcaption>
        </figure>
      ))}
    </div>
  );
}
