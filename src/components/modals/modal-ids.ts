/** DOM ids of the modals of spec §2 ("Generic layout"); e2e tests find modals by them. */
export const MODAL_IDS = {
  globalAlert: 'global-alert',
  globalConfirm: 'global-confirm',
  monitorAuth: 'monitor-auth',
  monitorMarking: 'monitor-marking',
  monitorHistory: 'monitor-history',
  deleteSettingCreate: 'delete-setting-create',
  deleteSettingEdit: 'delete-setting-edit',
  /** The wider view (not in spec §2): the examinee's room scan, and the exam held while the screen is not shared. */
  roomScan: 'room-scan',
  screenShareBlock: 'screen-share-block',
} as const;

export type ModalDomId = (typeof MODAL_IDS)[keyof typeof MODAL_IDS];
