/** DOM ids of the modals of spec §2 ("Generic layout"); e2e tests find modals by them. */
export const MODAL_IDS = {
  globalAlert: 'global-alert',
  globalConfirm: 'global-confirm',
  monitorAuth: 'monitor-auth',
  monitorMarking: 'monitor-marking',
  monitorHistory: 'monitor-history',
  deleteSettingCreate: 'delete-setting-create',
  deleteSettingEdit: 'delete-setting-edit',
} as const;

export type ModalDomId = (typeof MODAL_IDS)[keyof typeof MODAL_IDS];
