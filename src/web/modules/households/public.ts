// What other modules may use of the households: the address of a site's 'Foyers' screen, which
// the site sheet links to.
export const foyersPath = (siteId: number) => `/admin/fiche/site/${siteId}/foyers`;
