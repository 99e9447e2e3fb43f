// Paths of the field entry screens (kept apart so that a screen linking to another does not
// pull that screen's chunk).

export const SITE_CHOICE_PATH = '/admin/choix/site';
export const OUTBOX_PATH = '/admin/envois';
export const siteSheetPath = (siteId: number) => `/admin/fiche/site/${siteId}`;
