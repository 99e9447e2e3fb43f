// Text put into HTML (mails, the pages the server writes itself): the five characters that could
// open a tag or end an attribute become entities.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(v: string): string {
  return v.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
