import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { AlertBox } from '../../../components/ui/alert-box';
import { selectIsUploading } from '../layout-slice';

/** Tells the user not to close the window while layout.uploadingCount is above 0 (spec §2). */
export function UploadAlert() {
  const uploading = useAppSelector(selectIsUploading);
  const { t } = useTranslation('layout');
  if (!uploading) return null;
  return (
    <AlertBox
      variant="warning"
      className="position-fixed bottom-0 start-50 translate-middle-x mb-3 shadow"
      style={{ zIndex: 1900 }}
    >
      <span role="status">{t('uploading')}</span>
    </AlertBox>
  );
}
